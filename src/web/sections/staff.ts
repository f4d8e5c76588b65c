// The staff area (spec §2 "Staff area"): case list, case detail and case log, one chunk that
// patients never download.
export { CaseListPage } from '../features/cases/CaseListPage';
export { CaseDetailPage } from '../features/cases/CaseDetailPage';
export { CaseLogPage } from '../features/cases/CaseLogPage';
export { CalendarPage } from '../features/interviews/CalendarPage';
export { TaskListPage } from '../features/tasks/TaskListPage';
// The engagement radar (issue 32, /admin/engagement: coordinators, therapists, supporters).
export { EngagementPage } from '../features/engagement/EngagementPage';
export { TaskDetailPage } from '../features/tasks/TaskDetailPage';
// The template editor (issue 14, /admin/templates, coordinators).
export { TemplatesPage } from '../features/therapy/TemplatesPage';
