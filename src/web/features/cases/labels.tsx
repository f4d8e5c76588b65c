import { useTranslation } from 'react-i18next';
import { isKnownStage } from '../../../domain/case-stages';
import { rolesOf, type Involvement } from '../../../domain/messages';

/** A stage by its translated name; a stage the screens do not know yet shows as stored. */
export function StageName({ stage }: { stage: string }) {
  const { t } = useTranslation();
  return isKnownStage(stage) ? <>{t(`caseStages.${stage}`)}</> : <span dir="ltr">{stage}</span>;
}

/** The roles a member acts in, translated and joined; "not a member" when there is none. */
export function RoleList({ involvement }: { involvement: Involvement | null }) {
  const { t } = useTranslation();
  if (!involvement) return <span className="muted">{t('cases.notMember')}</span>;
  const roles = rolesOf(involvement);
  if (roles.length === 0) return <span className="muted">{t('cases.noRoles')}</span>;
  return <>{roles.map((role) => t(`roles.${role}`)).join(t('messages.listSeparator'))}</>;
}
