export { ConfirmResetPage } from '../features/auth/ConfirmPages';
