// The "main" section (spec §2): sign-in and home, loaded first.
export { LoginPage } from '../features/auth/LoginPage';
export { HomePage } from '../features/home/HomePage';
