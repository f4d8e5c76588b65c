// Account screens: registration, password reset, profile.
export { RegisterPage } from '../features/auth/RegisterPage';
export { ProfilePage } from '../features/auth/ProfilePage';
export { ResetPasswordPage } from '../features/auth/ConfirmPages';
export { SecondFactorPage } from '../features/signing/SecondFactorPage';
