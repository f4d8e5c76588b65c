import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import { involvementFor, rolesOf } from '../../../domain/messages';
import { CASE_ROLES, type CaseRole } from '../../../domain/roles';
import { ApiError } from '../../api/client';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Checkbox, SelectField, TextField } from '../../ui/ui';
import { personName } from '../messages/names';
import { RoleList } from './labels';
import { addCaseMember, findAccount, removeCaseMember, staffAccountsQuery, updateCaseMember, type Account, type CaseMemberRow } from './api';

function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'unknown', String(error));
}

/** The roles an account usually takes in a case, to preselect when adding it. */
function rolesFromAccount(account: Account): CaseRole[] {
  const flags: Record<CaseRole, boolean> = {
    therapist: account.isTherapistAccount,
    supervisor: account.isSupervisorAccount,
    interviewer: account.isInterviewerAccount,
    supporter: account.isSupporterAccount,
    counselor: account.isCounselorAccount,
    patient: false,
  };
  // The counselor role is given only on the counseling panel (one door, issue 27).
  return CASE_ROLES.filter((role) => flags[role] && role !== 'counselor');
}

function RoleChoice({ legend, roles, onChange }: { legend: string; roles: CaseRole[]; onChange(roles: CaseRole[]): void }) {
  const { t } = useTranslation();
  return (
    <fieldset className="field">
      <legend>{legend}</legend>
      <div className="checkbox-group">
        {CASE_ROLES.map((role) => (
          <Checkbox
            key={role}
            name={`role-${role}`}
            label={t(`roles.${role}`)}
            checked={roles.includes(role)}
            // The counselor is assigned on the counseling panel (one door, issue 27); shown, not changed here.
            disabled={role === 'counselor'}
            onChange={(e) => onChange(e.target.checked ? [...roles, role] : roles.filter((r) => r !== role))}
          />
        ))}
      </div>
      <p className="field__hint">{t('counseling.panel.membersNote')}</p>
    </fieldset>
  );
}

function MemberItem({ member, canManage, onChanged }: { member: CaseMemberRow; canManage: boolean; onChanged(): Promise<void> }) {
  const clock = useClock();
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [editing, setEditing] = useState(false);
  const [roles, setRoles] = useState(() => rolesOf(member));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const name = personName(member.user) ?? t('messages.formerMember');

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      setEditing(false);
      await onChanged();
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    const sure = await confirm({ title: t('cases.removeTitle'), message: t('cases.removeMessage', { name }), confirmLabel: t('cases.remove'), danger: true });
    if (sure) await run(() => removeCaseMember(member.id));
  };

  return (
    <li className="card card--flat member">
      <h3 className="member__name">
        <span dir="auto">{name}</span>
        {member.user ? (
          <span className="muted" dir="ltr">
            {' '}
            ({member.user.username})
          </span>
        ) : null}
      </h3>
      <dl className="facts">
        <dt>{t('cases.roles')}</dt>
        <dd>
          <RoleList involvement={member} />
        </dd>
        {member.user?.email ? (
          <>
            <dt>{t('cases.email')}</dt>
            <dd dir="ltr">{member.user.email}</dd>
          </>
        ) : null}
        {member.user?.phone ? (
          <>
            <dt>{t('cases.phone')}</dt>
            <dd dir="ltr">{member.user.phone}</dd>
          </>
        ) : null}
        {member.user ? (
          <>
            <dt>{t('cases.lastLogin')}</dt>
            <dd>{member.user.lastLogin ? clock.dateTime(member.user.lastLogin) : t('cases.never')}</dd>
            <dt>{t('cases.logins')}</dt>
            <dd>{member.user.nrOfLogins}</dd>
          </>
        ) : null}
      </dl>
      <ErrorAlert error={error} />
      {canManage && editing ? (
        <form
          className="form"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            void run(() => updateCaseMember(member.id, involvementFor(roles)));
          }}
        >
          <RoleChoice legend={t('cases.rolesOf', { name })} roles={roles} onChange={setRoles} />
          <div className="button-row">
            <button type="submit" className="button button--small" disabled={busy}>
              {t('common.save')}
            </button>
            <button
              type="button"
              className="button button--secondary button--small"
              disabled={busy}
              onClick={() => {
                setRoles(rolesOf(member));
                setEditing(false);
              }}
            >
              {t('common.cancel')}
            </button>
          </div>
        </form>
      ) : null}
      {canManage && !editing ? (
        <div className="button-row">
          <button type="button" className="button button--secondary button--small" disabled={busy} onClick={() => setEditing(true)}>
            {t('cases.changeRoles')}
            <span className="visually-hidden" dir="auto">
              {' '}
              {name}
            </span>
          </button>
          <button type="button" className="button button--secondary button--small" disabled={busy} onClick={() => void remove()}>
            {t('cases.remove')}
            <span className="visually-hidden" dir="auto">
              {' '}
              {name}
            </span>
          </button>
        </div>
      ) : null}
    </li>
  );
}

/**
 * Adding a person: pick a care-team account from the list, or find any account by its exact
 * username (the contract has no partial user search), then choose the roles they act in.
 */
function AddMemberForm({ caseId, memberIds, onChanged }: { caseId: string; memberIds: Set<string>; onChanged(): Promise<void> }) {
  const { t } = useTranslation();
  const staff = useQuery(staffAccountsQuery());
  const accounts = staff.data ?? [];
  const [chosen, setChosen] = useState<Account | null>(null);
  const [username, setUsername] = useState('');
  const [notFound, setNotFound] = useState(false);
  const [roles, setRoles] = useState<CaseRole[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [added, setAdded] = useState<string | null>(null);


  const choose = (account: Account | null) => {
    setChosen(account);
    setRoles(account ? rolesFromAccount(account) : []);
    setAdded(null);
  };

  const find = async () => {
    setNotFound(false);
    setError(null);
    try {
      const account = await findAccount(username.trim());
      if (account) choose(account);
      else setNotFound(true);
    } catch (caught) {
      setError(toApiError(caught));
    }
  };

  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen) return;
    setBusy(true);
    setError(null);
    try {
      await addCaseMember(caseId, chosen.id, involvementFor(roles));
      const name = personName(chosen);
      choose(null);
      setAdded(name);
      setUsername('');
      await onChanged();
    } catch (caught) {
      // The choice and the roles stay as they were, to correct and try again.
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  const options = accounts.filter((a) => !memberIds.has(a.id));
  return (
    <section className="card" aria-labelledby="add-member-title">
      <h3 id="add-member-title">{t('cases.addMember')}</h3>
      {added ? (
        <p className="alert alert--success" role="status">
          {t('cases.added', { name: added })}
        </p>
      ) : null}
      <ErrorAlert error={error ?? staff.error} />
      <form className="form" onSubmit={(e) => void add(e)} noValidate>
        <SelectField
          label={t('cases.chooseStaff')}
          name="member"
          value={chosen?.id ?? ''}
          onChange={(e) => choose(options.find((a) => a.id === e.target.value) ?? null)}
          options={[
            { value: '', label: t('cases.choosePerson') },
            ...(chosen && !options.some((a) => a.id === chosen.id) ? [chosen] : []).concat(options).map((a) => ({ value: a.id, label: `${personName(a)} (${a.username})` })),
          ]}
        />
        <div className="inline-form">
          <TextField
            label={t('cases.findByUsername')}
            name="username"
            data-ltr=""
            autoComplete="off"
            value={username}
            errors={notFound ? [{ code: 'account_not_found', message: '' }] : undefined}
            onChange={(e) => {
              setUsername(e.target.value);
              setNotFound(false);
            }}
            onKeyDown={(e) => {
              // Enter in this field looks the name up instead of submitting the whole form.
              if (e.key === 'Enter') {
                e.preventDefault();
                void find();
              }
            }}
          />
          <button type="button" className="button button--secondary" disabled={!username.trim()} onClick={() => void find()}>
            {t('cases.find')}
          </button>
        </div>
        <RoleChoice legend={t('cases.actsAs')} roles={roles} onChange={setRoles} />
        <div className="button-row">
          <button type="submit" className="button" disabled={busy || !chosen}>
            {t('cases.addToCase')}
          </button>
        </div>
      </form>
    </section>
  );
}

/** The people in a case and their roles; coordinators add, change and remove them. */
export function MembersSection({ caseId, members, canManage, onChanged }: { caseId: string; members: CaseMemberRow[]; canManage: boolean; onChanged(): Promise<void> }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">{t('cases.members')}</h2>
      {members.length === 0 ? <p className="muted">{t('cases.noMembers')}</p> : null}
      <ul className="member-list">
        {members.map((member) => (
          <MemberItem key={`${member.id}:${rolesOf(member).join()}`} member={member} canManage={canManage} onChanged={onChanged} />
        ))}
      </ul>
      {canManage ? <AddMemberForm caseId={caseId} memberIds={new Set(members.map((m) => m.userId))} onChanged={onChanged} /> : null}
    </section>
  );
}
