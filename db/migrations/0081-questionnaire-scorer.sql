-- Why: a questionnaire POST of a whole record wrote the record twice: the upsert of the answers
-- as sanad_user, then the scores through app_hidden.store_questionnaire_scores (an update of the
-- same row, audited and index-maintained again), since no request role may write a score
-- column (0009). For a whole record the server knows the scores before the write (the stored
-- answers will be the sent ones), so the upsert can carry them, but only as a role allowed to
-- write them (issue "Speed at clinic scale", questionnaire writes).
--
-- sanad_scorer is sanad_user (a member of it: the same grants, and the policies written for
-- sanad_user apply to it) plus the score columns of every questionnaire table: insert and
-- update, and select, which an upsert needs to read `excluded.<column>` in its SET list. The server switches to it for that one statement's transaction only
-- (src/server/rest/routes.ts writeInOneMessage, when the questionnaire collection plans a whole
-- record): the scores it writes are the server's, computed from the answers in the same
-- request; a body that names a score column is refused before (400 PGRST204), and no client
-- chooses a role. Writing the scores in the upsert itself keeps every trigger as it was: the
-- safety signal trigger of 0050 ("after insert or update of flags") fires because flags is in
-- the statement's SET list, as it did for store_questionnaire_scores' update. Other writes keep
-- store_questionnaire_scores (partial records, screening inputs at screening). The message's
-- statements read no score as sanad_scorer: the answer is read through <code>_records, whose own
-- rule shows scores to the care team and coordinators only, as for every other read.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'sanad_scorer') then
    create role sanad_scorer nologin;
  end if;
end
$$;
grant sanad_user to sanad_scorer;
-- The connection user (schema owner) switches to it per transaction, as to sanad_user.
grant sanad_scorer to current_user;

do $$
declare
  code text;
begin
  foreach code in array array['demographics', 'inep', 'bdi2', 'cdrisk10', 'comment', 'eurohis', 'scaling', 'gad2', 'gad7', 'mspss', 'pcl5', 'pg13', 'phq15', 'lec5', 'pmbs', 'sbqr', 'wai', 'trgi', 'taq', 'itq', 'tgisrplus', 'sewip', 'traumalisteneu', 'disclosure', 'evaluation', 'lsas', 'pathev', 'phq9'] loop
    execute format(
      'grant select (total, band, subscales, flags, diagnoses, complete), insert (total, band, subscales, flags, diagnoses, complete), '
      'update (total, band, subscales, flags, diagnoses, complete) on app_public.%I to sanad_scorer',
      code);
  end loop;
end
$$;
