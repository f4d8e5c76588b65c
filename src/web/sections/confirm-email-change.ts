export { ConfirmEmailChangePage } from '../features/auth/ConfirmPages';
