/**
 * Route id → screen, each loaded with its section's chunk.
 */
import type { ComponentType } from 'react';
import type { RouteId } from '../../domain/routes';
import { lazyScreen } from './lazy';

const main = () => import('../sections/main');
const account = () => import('../sections/account');
const content = () => import('../sections/content');
const staff = () => import('../sections/staff');
const interviews = () => import('../sections/interviews');
const manage = () => import('../sections/manage');
const assessments = () => import('../sections/assessments');

export const SCREENS: Record<RouteId, ComponentType> = {
  login: lazyScreen('main', main, (m) => m.LoginPage),
  home: lazyScreen('main', main, (m) => m.HomePage),
  profile: lazyScreen('account', account, (m) => m.ProfilePage),
  secondFactor: lazyScreen('account', account, (m) => m.SecondFactorPage),
  register: lazyScreen('account', account, (m) => m.RegisterPage),
  resetPassword: lazyScreen('account', account, (m) => m.ResetPasswordPage),
  registerCounseling: lazyScreen('registerCounseling', () => import('../sections/register-counseling'), (m) => m.RegisterCounselingPage),
  confirmRegistration: lazyScreen('confirmRegistration', () => import('../sections/confirm-registration'), (m) => m.ConfirmRegistrationPage),
  confirmEmailChange: lazyScreen('confirmEmailChange', () => import('../sections/confirm-email-change'), (m) => m.ConfirmEmailChangePage),
  confirmReset: lazyScreen('confirmPasswordReset', () => import('../sections/confirm-reset'), (m) => m.ConfirmResetPage),
  resendConfirmation: lazyScreen('resendConfirmation', () => import('../sections/resend-confirmation'), (m) => m.ResendConfirmationPage),
  conditionsTherapy: lazyScreen('conditionsTherapy', () => import('../sections/conditions-therapy'), (m) => m.ConditionsTherapyPage),
  conditionsCounseling: lazyScreen('conditionsCounseling', () => import('../sections/conditions-counseling'), (m) => m.ConditionsCounselingPage),
  about: lazyScreen('content', content, (m) => m.AboutPage),
  faq: lazyScreen('content', content, (m) => m.FaqPage),
  privacy: lazyScreen('content', content, (m) => m.PrivacyPage),
  imprint: lazyScreen('content', content, (m) => m.ImprintPage),
  downloads: lazyScreen('content', content, (m) => m.DownloadsPage),
  interview: lazyScreen('content', content, (m) => m.InterviewInfoPage),
  layoutSample: lazyScreen('content', content, (m) => m.LayoutSamplePage),
  pagesSample: lazyScreen('content', content, (m) => m.SamplePage),
  pagesSample2: lazyScreen('content', content, (m) => m.SamplePage2),
  allImages: lazyScreen('content', content, (m) => m.AllImagesPage),
  conversation: lazyScreen('main', main, (m) => m.ConversationPage),
  adminCases: lazyScreen('staff', staff, (m) => m.CaseListPage),
  adminCase: lazyScreen('staff', staff, (m) => m.CaseDetailPage),
  adminCaseLog: lazyScreen('staff', staff, (m) => m.CaseLogPage),
  adminInterviewCalendar: lazyScreen('staff', staff, (m) => m.CalendarPage),
  interviewBooking: lazyScreen('interviews', interviews, (m) => m.BookingPage),
  interviewManage: lazyScreen('manage', manage, (m) => m.ManagePage),
  measurementScreening: lazyScreen('assessments', assessments, (m) => m.ScreeningPage),
  measurementPre: lazyScreen('assessments', assessments, (m) => m.PrePage),
  measurementPost: lazyScreen('assessments', assessments, (m) => m.PostPage),
  measurementFu1: lazyScreen('assessments', assessments, (m) => m.FollowUp1Page),
  measurementFu2: lazyScreen('assessments', assessments, (m) => m.FollowUp2Page),
  surveys: lazyScreen('assessments', assessments, (m) => m.SurveysPage),
  adminEngagement: lazyScreen('staff', staff, (m) => m.EngagementPage),
  adminTasks: lazyScreen('staff', staff, (m) => m.TaskListPage),
  adminTask: lazyScreen('staff', staff, (m) => m.TaskDetailPage),
  workflows: lazyScreen('main', main, (m) => m.WorkflowsPage),
  due: lazyScreen('main', main, (m) => m.DuePage),
  interviewReports: lazyScreen('interviews', () => import('../sections/reports'), (m) => m.ReportsPage),
  adminTemplates: lazyScreen('staff', staff, (m) => m.TemplatesPage),
  pastLetters: lazyScreen('main', main, (m) => m.PastLettersPage),
  allExercises: lazyScreen('main', main, (m) => m.AllExercisesPage),
};
