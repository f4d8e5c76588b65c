-- Treatment modules × dropout: a worksheet task (workflows/treatment-modules.bpmn) now ends on
-- the `dropout` message, as the trial's treatment phase does. The server's own dropout paths
-- (exclusion, a suicide-risk call) reach it through app_hidden.notify_workflow; this row lets the
-- people who may record a dropout on the trial (0020) reach the worksheet tasks of that case with
-- the same message through POST /message, so a dropout never leaves worksheets due.
insert into app_private.workflow_calls (process_key, action, name, roles, variables, note) values
  ('treatment-modules', 'message', 'dropout', '{therapist,supervisor,coordinator}', '{"askForPostIfDroppedOut": "Boolean"}',
   'Only the therapists and supervisors of the case and coordinators record a dropout.');
