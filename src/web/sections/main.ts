// The "main" section (spec §2): sign-in and home, loaded first.
export { LoginPage } from '../features/auth/LoginPage';
export { HomePage } from '../features/home/HomePage';
// The conversation (spec §2 lists it in "main"): patients come here most.
export { ConversationPage } from '../features/messages/ConversationPage';
// Workflow screens of every signed-in person (spec §2 lists /workflows and /due in "main").
export { DuePage } from '../features/tasks/DuePage';
export { WorkflowsPage } from '../features/tasks/WorkflowsPage';
// The treatment's worksheets (issue 14; spec §2 lists /all-exercises in "main").
export { AllExercisesPage } from '../features/therapy/AllExercisesPage';
export { PastLettersPage } from '../features/therapy/PastLettersPage';
