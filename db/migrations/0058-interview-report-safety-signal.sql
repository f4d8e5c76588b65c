-- Clinical safety × interview report: a finalized interview report whose MINI suicidality risk
-- (computed by the server from C1–C6) is moderate or high is a risk signal like a PHQ-9 item 9
-- answer. It enters through the one door every signal uses, app_hidden.raise_safety_signal, in
-- the transaction that finalizes (or a coordinator's amendment that raises the risk), so the
-- signal can neither be lost nor raised twice for one report.

create function app_hidden.tg_interview_report_safety_signal() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  perform app_hidden.raise_safety_signal(new.case_id, 'interview_report', new.id,
    jsonb_strip_nulls(jsonb_build_object(
      'suicideRisk', new.suicidality_risk,
      'suicidalityScore', to_jsonb(new) -> 'suicidality_score')));
  return null;
end;
$$;
comment on function app_hidden.tg_interview_report_safety_signal() is
  'Raises a safety signal for a finalized interview report with moderate or high suicidality risk.';

create trigger _500_safety_signal
  after insert or update of state, suicidality_risk on app_public.interview_reports
  for each row
  when (new.state = 'final' and new.suicidality_risk in ('moderate', 'high'))
  execute function app_hidden.tg_interview_report_safety_signal();
