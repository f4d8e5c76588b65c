// Interview reports (spec §2 /interviews/reports): the list, the form "Interviewbericht", feedback reports.
export { ReportsPage } from '../features/reports/ReportsPage';
