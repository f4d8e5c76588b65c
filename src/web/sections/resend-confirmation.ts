export { ResendConfirmationPage } from '../features/auth/ConfirmPages';
