-- Which worksheets belong to which arm (0220) is read by patients, therapists and the rest of
-- the care team, but a blinded outcome assessor (0241) has no use for it, and every arm code
-- the assessor can read weakens the blinding the assessor crawl guards. The two features met
-- only at merge; this closes the read for the assessor.
drop policy select_all on app_public.arm_worksheets;
create policy select_not_assessor on app_public.arm_worksheets for select to sanad_user
  using (not app_hidden.is_assessor());
