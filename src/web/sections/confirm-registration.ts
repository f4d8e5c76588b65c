export { ConfirmRegistrationPage } from '../features/auth/ConfirmPages';
