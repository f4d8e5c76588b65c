-- Why: a treatment that ended normally left the worksheet tasks it assigned open (issue 14):
-- only a dropout ended them (0076). Now the trial's treatment phase, when it completes
-- (workflows/trial.bpmn service task `treatmentModulesEnd`), queues the internal message
-- `treatmentEnded` through app_hidden.notify_workflow, and each open worksheet task of
-- workflows/treatment-modules.bpmn ends on it (a boundary message event). The message reports a
-- fact only the trial knows, so nobody may send it through POST /message; the catch-all row of
-- 0020 refuses it already, this row says why to a person who tries.
-- See docs/DECISIONS.md "2026-11 Therapy content, completion".
insert into app_private.workflow_calls (process_key, action, name, roles, variables, note) values
  ('*', 'message', 'treatmentEnded', '{}', '{}',
   'The trial sends this message when the treatment phase ends; nobody sends it by hand.');
