/**
 * The instrument definition model: one plain object per questionnaire or interview module that
 * drives the database table (item ids are column names), validation, scoring, the form and the
 * export. Scoring facts come from shared/docs/INSTRUMENTS.md; every fact marked there as
 * unverified (⚠️) or unresolved (❓) is a value of the definition's `config`, so a trial can
 * correct it with `withOverrides` instead of a code change, and is explained in `assumptions`.
 */
import type { Locale } from '../locales';

/** A short text in each of the three locales (spec §1). Always the project's own wording. */
export type Labels = Readonly<Record<Locale, string>>;

/** A value the platform stores for one item. Multi-selects store the selected codes. */
export type AnswerValue = number | string | boolean | readonly string[];

/** Item id → value. `null` and `undefined` mean "not answered", as an empty database column. */
export type Answers = Readonly<Record<string, AnswerValue | null | undefined>>;

export interface OptionDefinition {
  /** Stored code; stable across versions (the export and the database keep it). */
  readonly code: string;
  readonly labels: Labels;
  /** Points the option contributes to scores. Nominal options (demographics) have none. */
  readonly points?: number;
  /** In a multi-select: cannot be combined with another option ("does not apply"). */
  readonly exclusive?: boolean;
}

/** A labelled point of an integer scale (end points at least, so a form can show them). */
export interface AnchorDefinition {
  readonly value: number;
  readonly labels: Labels;
}

/** Integer rating or count, stored as a number; its value is its points. */
export interface IntegerScale {
  readonly kind: 'integer';
  readonly min: number;
  readonly max: number;
  readonly anchors: readonly AnchorDefinition[];
}

/** One coded option out of a list, stored as the code (e.g. BDI-II '1a'). */
export interface OptionsScale {
  readonly kind: 'options';
  readonly options: readonly OptionDefinition[];
}

/** Any number of coded options, stored as an array of codes (e.g. LEC-5 exposure kinds). */
export interface MultiScale {
  readonly kind: 'multi';
  readonly options: readonly OptionDefinition[];
}

/** Yes or no, stored as a boolean; points default to yes 1, no 0 (DAST-10). */
export interface YesNoScale {
  readonly kind: 'yesno';
  readonly points?: { readonly yes: number; readonly no: number };
}

export interface TextScale {
  readonly kind: 'text';
  /** In Unicode characters, so Arabic and German text are measured alike. */
  readonly maxLength: number;
  readonly multiline?: boolean;
}

/** A calendar date, stored as `YYYY-MM-DD`. */
export interface DateScale {
  readonly kind: 'date';
}

export type ResponseScale = IntegerScale | OptionsScale | MultiScale | YesNoScale | TextScale | DateScale;
export type ScaleKind = ResponseScale['kind'];

/**
 * When an item is shown: the referenced (earlier) item is shown and answered, and its answer
 * is one of `anyOf` (for a multi-select: any selected code is) and its points reach `atLeast`.
 * A hidden item is never required, never scored, and may not be answered.
 */
export interface DisplayCondition {
  readonly item: string;
  readonly anyOf?: readonly (string | number | boolean)[];
  readonly atLeast?: number;
}

export interface ItemDefinition {
  /** Column name and form field: `item1`…`itemN`, or a named id (`age`, `p1`). */
  readonly id: string;
  /** Short neutral label of the project's own; licensed wording is installed per trial. */
  readonly labels: Labels;
  readonly scale: ResponseScale;
  readonly required: boolean;
  readonly showIf?: DisplayCondition;
}

/**
 * A score built from items: sum or mean of their points, with reversed items counted as
 * (lowest + highest − points). `derived` scores are computed by the definition's `derive`
 * (counts, algorithms); their `items` say which items they read.
 */
export interface ScoreDefinition {
  readonly id: string;
  readonly labels: Labels;
  readonly items: readonly string[];
  readonly aggregate: 'sum' | 'mean' | 'derived';
  readonly reversed?: readonly string[];
}

export type TotalDefinition = Omit<ScoreDefinition, 'id'>;

/**
 * Ordered severity bands on the total: the band is the last one whose lower bound the total
 * reaches (`min`, or strictly above it when `minExclusive`). Codes are stable export values.
 */
export interface BandDefinition {
  readonly code: string;
  readonly labels: Labels;
  readonly min: number;
  readonly minExclusive?: boolean;
}

/** A rule over item points, raw answers or scores; `score` names `total` or a subscale id. */
export type Condition =
  | { readonly item: string; readonly atLeast: number }
  | { readonly item: string; readonly atMost: number }
  | { readonly item: string; readonly anyOf: readonly (string | number | boolean)[] }
  | { readonly score: string; readonly atLeast: number }
  | { readonly any: readonly Condition[] }
  | { readonly all: readonly Condition[] };

/**
 * A flag raised by the answers. `safety` flags start the safety workflow whatever the total
 * (INSTRUMENTS.md §6); `clinical` flags inform staff (cut-offs, rejection-reason suggestions).
 * A flag without `when` is raised by the definition's `derive`.
 */
export interface FlagDefinition {
  readonly code: string;
  readonly kind: 'safety' | 'clinical';
  readonly labels: Labels;
  readonly when?: Condition;
}

/** A provisional (screening) diagnosis an algorithm yields; never a clinical diagnosis. */
export interface DiagnosisDefinition {
  readonly code: string;
  readonly labels: Labels;
}

/**
 * Licence class and whether item wording may be in this repository, from INSTRUMENTS.md
 * §1 and §6. The repository ships neutral labels only, whatever `itemText` says.
 */
export interface LicenceNote {
  readonly class: 'free' | 'public_domain' | 'free_non_commercial' | 'free_ask_authors' | 'permission_unclear' | 'commercial' | 'project';
  readonly itemText: 'may_ship' | 'conditional' | 'ask' | 'never' | 'project';
  readonly note: string;
}

/**
 * How far the facts behind a definition are checked (INSTRUMENTS.md legend): `verified` ✅,
 * `partly_verified` ✅ with ⚠️ parts, `unverified` ⚠️, `unresolved` ❓, `project` defined by
 * this project where the sources say nothing. Everything but `verified` lists assumptions.
 */
export type Verification = 'verified' | 'partly_verified' | 'unverified' | 'unresolved' | 'project';

/** Who the scoring concerns, where cut-offs depend on it (AUDIT). */
export interface ScoringContext {
  readonly gender?: 'FEMALE' | 'MALE' | 'DIVERSE';
  readonly age?: number;
}

/** What a definition's `derive` gets: only valid answers of shown items. */
export interface DeriveInput<C> {
  readonly config: C;
  readonly context: ScoringContext;
  readonly complete: boolean;
  /** Points of an answered, shown, valid item; undefined otherwise. */
  points(itemId: string): number | undefined;
  /** Valid raw answer of a shown item; undefined otherwise. */
  value(itemId: string): AnswerValue | undefined;
  readonly subscales: Readonly<Record<string, number | undefined>>;
  readonly total: number | undefined;
}

export interface Derived {
  readonly subscales?: Readonly<Record<string, number | undefined>>;
  readonly flags?: readonly string[];
  readonly diagnoses?: Readonly<Record<string, boolean | undefined>>;
}

export interface InstrumentSpec<C> {
  /** The REST collection name of spec §7 (`/api/<code>`), or the interview module's code. */
  readonly code: string;
  /** Pinned version (INSTRUMENTS.md §6): which form, language set and cut-point set. */
  readonly version: string;
  readonly kind: 'questionnaire' | 'interview_module';
  readonly labels: Labels;
  readonly verification: Verification;
  readonly licence: LicenceNote;
  readonly items: readonly ItemDefinition[];
  readonly subscales: readonly ScoreDefinition[];
  readonly total?: TotalDefinition;
  readonly bands?: readonly BandDefinition[];
  readonly flags: readonly FlagDefinition[];
  readonly diagnoses: readonly DiagnosisDefinition[];
  readonly assumptions: readonly string[];
  /** Scoring the generic rules cannot express (algorithms, counts, context-dependent cut-offs). */
  derive?(input: DeriveInput<C>): Derived;
}

export interface InstrumentDefinition<C extends object = object> extends InstrumentSpec<C> {
  /** Every adjustable fact; a trial overrides it with `withOverrides`. */
  readonly config: C;
  /** Builds the same instrument from another configuration (used by `withOverrides`). */
  rebuild(config: C): InstrumentDefinition<C>;
}

/** Result of `score`: computed on the server from the items only. */
export interface ScoreResult {
  total?: number;
  subscales: Record<string, number | undefined>;
  band?: string;
  flags: string[];
  diagnoses?: Record<string, boolean | undefined>;
  complete: boolean;
  missingRequired: string[];
}

export const VALIDATION_CODES = [
  'not_an_object',
  'unknown_item',
  'computed_field',
  'wrong_type',
  'not_integer',
  'out_of_range',
  'unknown_option',
  'duplicate_option',
  'exclusive_option',
  'too_long',
  'invalid_date',
  'not_applicable',
  'required',
] as const;
export type ValidationCode = (typeof VALIDATION_CODES)[number];

/** One problem with one field; `code` is stable, `message` is for developers. */
export interface FieldError {
  readonly field: string;
  readonly code: ValidationCode;
  readonly message: string;
}
