export { ConditionsCounselingPage } from '../features/content/ContentPage';
