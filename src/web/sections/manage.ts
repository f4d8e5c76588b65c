// The "manage" section (spec §2): an interviewer's time slots.
export { ManagePage } from '../features/interviews/ManagePage';
