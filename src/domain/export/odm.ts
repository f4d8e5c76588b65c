/**
 * CDISC ODM 1.3.2 (issue 33): the questionnaires' study metadata and clinical data in the XML a
 * sponsor's EDC imports. Metadata comes from the instrument definitions through the same data
 * dictionary as the codebook (dictionary.ts): one StudyEventDef per time of measurement, one
 * FormDef and ItemGroupDef per questionnaire, one ItemDef per item, score, flag and diagnosis
 * (questions in ar, de and en as TranslatedText), one CodeList per labelled column. Clinical
 * data: one SubjectData per case (the pseudonymous case id is the SubjectKey), StudyEventData per
 * time, FormData per record with an AuditRecord of its last change. An empty cell has no
 * ItemData (ODM's "no value"), so undeterminable flags stay missing as in the CSV.
 *
 * Element order follows the ODM 1.3.2 schema; test/integration/odm-export.int.test.ts validates
 * every file against it. See docs/decisions/standard-exports.md.
 */
import type { Locale } from '../locales';
import type { Cell } from '../instruments/export';
import type { Dataset, Variable } from './dictionary';

export const ODM_NAMESPACE = 'http://www.cdisc.org/ns/odm/v1.3';
const LOCALES: readonly Locale[] = ['ar', 'de', 'en'];

/** A questionnaire in every locale (same variables, labels per locale) and its records' cells. */
export interface OdmForm {
  readonly code: string;
  readonly datasets: Readonly<Record<Locale, Dataset>>;
  /** One entry per record: case, time, last change (UTC ISO) and the cells in variable order. */
  readonly records: readonly OdmRecord[];
}

export interface OdmRecord {
  readonly caseId: string;
  readonly time: string;
  readonly updatedAt: string;
  readonly cells: readonly Cell[];
}

export interface OdmStudy {
  readonly studyName: string;
  readonly description: string;
  /** Times of measurement in trial order, with labels per locale. */
  readonly times: readonly { readonly code: string; readonly labels: Readonly<Record<Locale, string>> }[];
  readonly forms: readonly OdmForm[];
  readonly createdAt: string;
  readonly fileOid: string;
}

/** Record and case columns are ODM structure (SubjectKey, StudyEvent, AuditRecord), not items. */
const STRUCTURE = new Set(['case_id', 'time_of_measurement', 'created_at', 'updated_at']);

export function xmlEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;');
}

const attrs = (values: Record<string, string | number | undefined>): string =>
  Object.entries(values)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => ` ${name}="${xmlEscape(String(value))}"`)
    .join('');

/** OIDs: ODM allows any text; ours are stable and readable (`I.phq9.item1`). */
export const oid = {
  event: (time: string) => `SE.${time}`,
  form: (code: string) => `F.${code}`,
  group: (code: string) => `IG.${code}`,
  item: (code: string, name: string) => `I.${code}.${name}`,
  codeList: (code: string, name: string) => `CL.${code}.${name}`,
};

function odmDataType(v: Variable): string {
  switch (v.type) {
    case 'integer':
    case 'boolean':
      return 'integer';
    case 'number':
      return 'float';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime';
    case 'uuid':
    case 'code':
    case 'codes':
    case 'text':
      return 'text';
  }
}

const translated = (texts: Readonly<Record<Locale, string>>, indent: string): string => LOCALES.map((locale) => `${indent}<TranslatedText xml:lang="${locale}">${xmlEscape(texts[locale])}</TranslatedText>`).join('\n');

const perLocale = (form: OdmForm, pick: (dataset: Dataset) => string): Record<Locale, string> => ({ ar: pick(form.datasets.ar), de: pick(form.datasets.de), en: pick(form.datasets.en) });

/** The variables a form carries as items (structure columns are left out), with their positions. */
function itemVariables(form: OdmForm): { variable: Variable; index: number }[] {
  return form.datasets.en.variables.map((variable, index) => ({ variable, index })).filter(({ variable }) => !STRUCTURE.has(variable.name));
}

/** Whether a column gets a CodeList: labelled values that match the cell (not a `;` list). */
const hasCodeList = (v: Variable): boolean => v.values.length > 0 && v.type !== 'codes';

function metadata(study: OdmStudy): string {
  const out: string[] = [];
  out.push('    <MetaDataVersion OID="MDV.1" Name="Sanad questionnaires">');
  out.push('      <Protocol>');
  study.times.forEach((time, i) => out.push(`        <StudyEventRef${attrs({ StudyEventOID: oid.event(time.code), OrderNumber: i + 1, Mandatory: 'No' })}/>`));
  out.push('      </Protocol>');
  for (const time of study.times) {
    out.push(`      <StudyEventDef${attrs({ OID: oid.event(time.code), Name: time.labels.en, Repeating: 'No', Type: 'Scheduled' })}>`);
    study.forms.forEach((form, i) => out.push(`        <FormRef${attrs({ FormOID: oid.form(form.code), OrderNumber: i + 1, Mandatory: 'No' })}/>`));
    out.push('      </StudyEventDef>');
  }
  for (const form of study.forms) {
    out.push(`      <FormDef${attrs({ OID: oid.form(form.code), Name: form.datasets.en.title, Repeating: 'No' })}>`);
    out.push('        <Description>', translated(perLocale(form, (d) => `${d.title} (${d.version})`), '          '), '        </Description>');
    out.push(`        <ItemGroupRef${attrs({ ItemGroupOID: oid.group(form.code), Mandatory: 'Yes' })}/>`);
    out.push('      </FormDef>');
  }
  for (const form of study.forms) {
    out.push(`      <ItemGroupDef${attrs({ OID: oid.group(form.code), Name: form.code, Repeating: 'No' })}>`);
    itemVariables(form).forEach(({ variable }, i) => out.push(`        <ItemRef${attrs({ ItemOID: oid.item(form.code, variable.name), OrderNumber: i + 1, Mandatory: variable.required ? 'Yes' : 'No' })}/>`));
    out.push('      </ItemGroupDef>');
  }
  for (const form of study.forms) {
    for (const { variable, index } of itemVariables(form)) {
      const texts = perLocale(form, (d) => d.variables[index]!.label);
      out.push(`      <ItemDef${attrs({ OID: oid.item(form.code, variable.name), Name: variable.name, DataType: odmDataType(variable), Length: variable.type === 'text' ? (variable.maxLength ?? undefined) : undefined })}>`);
      const notes = [variable.derivation && `derivation: ${variable.derivation}`, variable.shownIf && `shown if: ${variable.shownIf}`, variable.type === 'codes' && 'codes of the selected options, separated by ;', `missing: ${variable.missing}`].filter(Boolean).join('; ');
      out.push('        <Description>', `          <TranslatedText xml:lang="en">${xmlEscape(notes)}</TranslatedText>`, '        </Description>');
      out.push('        <Question>', translated(texts, '          '), '        </Question>');
      if (variable.type === 'integer' && typeof variable.min === 'number' && typeof variable.max === 'number') {
        out.push(`        <RangeCheck Comparator="GE" SoftHard="Hard"><CheckValue>${variable.min}</CheckValue></RangeCheck>`);
        out.push(`        <RangeCheck Comparator="LE" SoftHard="Hard"><CheckValue>${variable.max}</CheckValue></RangeCheck>`);
      }
      if (hasCodeList(variable)) out.push(`        <CodeListRef CodeListOID="${xmlEscape(oid.codeList(form.code, variable.name))}"/>`);
      out.push('      </ItemDef>');
    }
  }
  for (const form of study.forms) {
    for (const { variable, index } of itemVariables(form)) {
      if (!hasCodeList(variable)) continue;
      out.push(`      <CodeList${attrs({ OID: oid.codeList(form.code, variable.name), Name: variable.name, DataType: odmDataType(variable) === 'integer' ? 'integer' : 'text' })}>`);
      variable.values.forEach((value, n) => {
        out.push(`        <CodeListItem CodedValue="${xmlEscape(String(value.value))}">`, '          <Decode>', translated(perLocale(form, (d) => d.variables[index]!.values[n]!.label), '            '), '          </Decode>', '        </CodeListItem>');
      });
      out.push('      </CodeList>');
    }
  }
  out.push('    </MetaDataVersion>');
  return out.join('\n');
}

/** The cell as ODM text: numbers as written, everything else as the CSV's value. */
const odmValue = (cell: Cell): string => (typeof cell === 'number' ? String(cell) : (cell ?? ''));

function clinicalData(study: OdmStudy): string {
  const byCase = new Map<string, Map<string, { form: OdmForm; record: OdmRecord }[]>>();
  for (const form of study.forms) {
    for (const record of form.records) {
      const times = byCase.get(record.caseId) ?? new Map<string, { form: OdmForm; record: OdmRecord }[]>();
      byCase.set(record.caseId, times);
      const list = times.get(record.time) ?? [];
      list.push({ form, record });
      times.set(record.time, list);
    }
  }
  const out: string[] = ['  <ClinicalData StudyOID="S.SANAD" MetaDataVersionOID="MDV.1">'];
  for (const caseId of [...byCase.keys()].sort()) {
    out.push(`    <SubjectData SubjectKey="${xmlEscape(caseId)}">`);
    const times = byCase.get(caseId)!;
    for (const time of study.times.map((t) => t.code).filter((code) => times.has(code))) {
      out.push(`      <StudyEventData StudyEventOID="${xmlEscape(oid.event(time))}">`);
      for (const { form, record } of times.get(time)!) {
        out.push(`        <FormData FormOID="${xmlEscape(oid.form(form.code))}">`);
        out.push('          <AuditRecord EditPoint="DBAudit">', '            <UserRef UserOID="USR.sanad"/>', '            <LocationRef LocationOID="LOC.sanad"/>', `            <DateTimeStamp>${xmlEscape(record.updatedAt)}</DateTimeStamp>`, '          </AuditRecord>');
        out.push(`          <ItemGroupData ItemGroupOID="${xmlEscape(oid.group(form.code))}">`);
        for (const { variable, index } of itemVariables(form)) {
          const cell = record.cells[index];
          if (cell === null || cell === undefined || cell === '') continue;
          out.push(`            <ItemData${attrs({ ItemOID: oid.item(form.code, variable.name), Value: odmValue(cell) })}/>`);
        }
        out.push('          </ItemGroupData>', '        </FormData>');
      }
      out.push('      </StudyEventData>');
    }
    out.push('    </SubjectData>');
  }
  out.push('  </ClinicalData>');
  return out.join('\n');
}

/** The whole ODM file: Study (metadata), AdminData (the system user and site), ClinicalData. */
export function odmXml(study: OdmStudy): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ODM xmlns="${ODM_NAMESPACE}"${attrs({ ODMVersion: '1.3.2', FileType: 'Snapshot', Granularity: 'All', FileOID: study.fileOid, CreationDateTime: study.createdAt, SourceSystem: 'Sanad' })}>`,
    '  <Study OID="S.SANAD">',
    '    <GlobalVariables>',
    `      <StudyName>${xmlEscape(study.studyName)}</StudyName>`,
    `      <StudyDescription>${xmlEscape(study.description)}</StudyDescription>`,
    `      <ProtocolName>${xmlEscape(study.studyName)}</ProtocolName>`,
    '    </GlobalVariables>',
    metadata(study),
    '  </Study>',
    '  <AdminData StudyOID="S.SANAD">',
    // Pseudonymous: changes are attributed to the platform, not to a named person.
    '    <User OID="USR.sanad"><DisplayName>Sanad platform</DisplayName></User>',
    `    <Location OID="LOC.sanad" Name="Sanad" LocationType="Site"><MetaDataVersionRef StudyOID="S.SANAD" MetaDataVersionOID="MDV.1" EffectiveDate="${study.createdAt.slice(0, 10)}"/></Location>`,
    '  </AdminData>',
    clinicalData(study),
    '</ODM>',
    '',
  ].join('\n');
}
