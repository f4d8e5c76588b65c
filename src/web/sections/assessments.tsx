// The "assessments" section (spec §2): the measurement screens and the questionnaire overview,
// one chunk loaded when a patient opens them.
import { MeasurementPage } from '../features/measurements/MeasurementPage';

export { SurveysPage } from '../features/measurements/SurveysPage';

export function ScreeningPage() {
  return <MeasurementPage time="screening" />;
}

export function PrePage() {
  return <MeasurementPage time="pre" />;
}

export function PostPage() {
  return <MeasurementPage time="post" />;
}

export function FollowUp1Page() {
  return <MeasurementPage time="fu1" />;
}

export function FollowUp2Page() {
  return <MeasurementPage time="fu2" />;
}
