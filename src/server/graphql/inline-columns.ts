/**
 * Per-case columns of the case lists, read as subqueries of the page's statement instead of a
 * function call per case (issue 17, PagedCases). PagedCases asks nextWaitingDate,
 * latestPhq9Item9, openSafetySignals, two task summaries, the patient and myInvolvement for 200 cases a page; as calls of their PL/pgSQL
 * functions each cost 8–15 µs of PostgreSQL CPU, nearly all of it the call itself (an executor
 * started for each call, the security definer's setting), not the question.
 *
 * Migrations 0104–0106 define each as an SQL set-returning function in app_hidden, the same rule
 * written so that PostgreSQL inlines it: planned once with the page, rescanned per case, the
 * reader test evaluated once per statement. Here the GraphQL resource of each app_public
 * function reads its app_hidden twin instead, `(select v from app_hidden.<name>_inline(row) v)`
 * for a scalar, `app_hidden.<name>_inline(row, …)` in FROM for the rows (task summary, patient, membership):
 * same field, same type, same answers (compared for every reader in
 * test/integration/case-list-pages.int.test.ts). The rules stay in SQL; this only routes.
 *
 * 0106 adds the columns the lists still called per row: newMessages and latestMessage of a case
 * (read from the reader's own rows of the kept inbox through the view app_hidden.my_case_inbox),
 * the person of a care-role membership (the users policy itself) and isUnread / isFavorite of
 * each message of a case's page.
 */
import type {} from 'graphile-config';
import type {} from 'postgraphile';
import { sqlFromArgDigests, type PgSelectArgumentDigest } from 'postgraphile/@dataplan/pg';
import { sql } from 'postgraphile/pg-sql2';

/** app_public scalar function → its inlinable twin in app_hidden (0104, 0106), read as a scalar subquery. */
export const INLINED_COLUMNS: Readonly<Record<string, string>> = {
  cases_next_waiting_date: 'cases_next_waiting_date_inline',
  cases_latest_phq9_item9: 'cases_latest_phq9_item9_inline',
  cases_open_safety_signals: 'cases_open_safety_signals_inline',
  cases_new_messages: 'cases_new_messages_inline',
  case_messages_is_unread: 'case_messages_is_unread_inline',
  case_messages_is_favorite: 'case_messages_is_favorite_inline',
};

/**
 * app_public function of a composite type → its twin, read where the function was: in FROM
 * (PostGraphile selects a composite's fields from the function, joined laterally to the page).
 */
export const INLINED_ROWS: Readonly<Record<string, string>> = {
  cases_task_summary: 'cases_task_summary_inline',
  cases_patient: 'cases_patient_inline',
  cases_my_involvement: 'cases_my_involvement_inline',
  cases_latest_message: 'cases_latest_message_inline',
  case_members_person: 'case_members_person_inline',
};

function twinOf(
  pgProc: { proname: string; getNamespace(): { nspname: string } | undefined },
  twins: Readonly<Record<string, string>>,
): string | undefined {
  return pgProc.getNamespace()?.nspname === 'app_public' ? twins[pgProc.proname] : undefined;
}

export const InlineCaseColumnsPlugin: GraphileConfig.Plugin = {
  name: 'InlineCaseColumnsPlugin',
  description: 'Reads the inlinable twins of per-case columns (migrations 0104–0106) as subqueries of the statement.',
  version: '1.0.0',
  gather: {
    hooks: {
      // Functions of a composite type (a resource of rows).
      pgProcedures_functionResourceOptions(_info, event) {
        const twin = twinOf(event.pgProc, INLINED_ROWS);
        if (!twin) return;
        const identifier = sql.identifier('app_hidden', twin);
        event.functionResourceOptions.from = (...args: PgSelectArgumentDigest[]) => sql`${identifier}(${sqlFromArgDigests(args)})`;
      },
      // Functions of a scalar type (an expression of the row).
      pgProcedures_PgResourceOptions(_info, event) {
        const twin = twinOf(event.pgProc, INLINED_COLUMNS);
        if (!twin) return;
        const identifier = sql.identifier('app_hidden', twin);
        const alias = sql.identifier(Symbol('inline_column'));
        event.resourceOptions.from = (...args: PgSelectArgumentDigest[]) =>
          sql`(select ${alias} from ${identifier}(${sqlFromArgDigests(args)}) as ${alias})`;
      },
    },
  },
};
