export { UpcomingPage } from '../features/upcoming/UpcomingPage';
