// "Register for counseling" loads on demand (spec §2).
import { RegisterPage } from '../features/auth/RegisterPage';

export function RegisterCounselingPage() {
  return <RegisterPage counseling />;
}
