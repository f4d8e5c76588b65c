export { ConditionsTherapyPage } from '../features/content/ContentPage';
