// The "interviews" section (spec §2): booking an intake interview, for patients and coordinators.
export { BookingPage } from '../features/interviews/BookingPage';
