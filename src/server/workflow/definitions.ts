/**
 * Process definitions: the BPMN files of `workflows/`, deployed at start and versioned by the
 * hash of their content (a changed file becomes a new version; running instances keep theirs).
 * Each version is parsed once per process (camunda-bpmn-moddle) and analysed for what the host
 * needs to know without running it: message and signal names per waiting activity, the Camunda
 * attributes and forms of user tasks, and the handler topic and inputs of service tasks.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import BpmnModdle from 'bpmn-moddle';
import type { Sql } from '../db/transaction';
import { compileProcess, type ProcessModel } from './process-model';

const require = createRequire(import.meta.url);
export const camundaModdle = require('camunda-bpmn-moddle/resources/camunda.json') as Record<string, unknown>;

export interface FormField {
  id: string;
  label?: string;
  type: string;
  defaultValue?: string;
  values?: { id: string; name?: string }[];
}

export interface UserTaskInfo {
  name?: string;
  assignee?: string;
  owner?: string;
  candidateGroups?: string;
  dueDate?: string;
  followUpDate?: string;
  priority?: string;
  /** Sanad extension (camunda:property completeOnMessage): a message of this name completes the task. */
  completeOnMessage?: string;
  /**
   * Sanad extension (camunda:property completeOnMessageMatching, comma-separated variable names):
   * the message completes the task only when each named message variable equals the process
   * variable of that name (e.g. `worksheet`: the sent worksheet is the task's own).
   */
  completeOnMessageMatching?: string[];
  formFields: FormField[];
}

export interface ServiceTaskInfo {
  name?: string;
  topic: string;
  inputs: Record<string, string>;
}

export interface DefinitionInfo {
  key: string;
  version: number;
  source: string;
  moddleContext: unknown;
  processName?: string;
  names: Map<string, string | undefined>;
  types: Map<string, string>;
  /** message name → BPMN message element id (the engine signals by id) */
  messageIds: Map<string, string>;
  signalIds: Map<string, string>;
  /** waiting activity id → message or signal name it waits for */
  activityMessages: Map<string, string>;
  activitySignals: Map<string, string>;
  userTasks: Map<string, UserTaskInfo>;
  serviceTasks: Map<string, ServiceTaskInfo>;
  /** What Sanad's interpreter runs (process-model.ts); `model.unsupported` lists what it cannot. */
  model: ProcessModel;
}

export function contentHash(source: string): string {
  return crypto.createHash('sha256').update(source).digest('hex');
}

function extensionValues(element: any, type: string): any[] {
  return ((element.extensionElements?.values ?? []) as any[]).filter((v) => v.$type === type);
}

function completeOnMessage(element: any): { completeOnMessage?: string; completeOnMessageMatching?: string[] } {
  const result: { completeOnMessage?: string; completeOnMessageMatching?: string[] } = {};
  for (const properties of extensionValues(element, 'camunda:Properties')) {
    for (const property of (properties.values ?? []) as any[]) {
      if (property.name === 'completeOnMessage' && property.value) result.completeOnMessage = String(property.value);
      if (property.name === 'completeOnMessageMatching' && property.value) {
        result.completeOnMessageMatching = String(property.value).split(',').map((name) => name.trim()).filter(Boolean);
      }
    }
  }
  return result;
}

function analyseElements(info: DefinitionInfo, elements: any[]): void {
  for (const element of elements) {
    info.names.set(element.id, element.name);
    info.types.set(element.id, element.$type);
    for (const definition of (element.eventDefinitions ?? []) as any[]) {
      if (definition.$type === 'bpmn:MessageEventDefinition' && definition.messageRef?.name) {
        info.activityMessages.set(element.id, definition.messageRef.name);
      }
      if (definition.$type === 'bpmn:SignalEventDefinition' && definition.signalRef?.name) {
        info.activitySignals.set(element.id, definition.signalRef.name);
      }
    }
    if (element.$type === 'bpmn:ReceiveTask' && element.messageRef?.name) info.activityMessages.set(element.id, element.messageRef.name);
    if (element.$type === 'bpmn:UserTask') {
      const formFields: FormField[] = extensionValues(element, 'camunda:FormData').flatMap((form) =>
        ((form.fields ?? []) as any[]).map((field) => ({
          id: String(field.id),
          ...(field.label ? { label: String(field.label) } : {}),
          type: String(field.type ?? 'string'),
          ...(field.defaultValue !== undefined ? { defaultValue: String(field.defaultValue) } : {}),
          ...(field.values?.length ? { values: (field.values as any[]).map((v) => ({ id: String(v.id), name: v.name as string | undefined })) } : {}),
        })),
      );
      info.userTasks.set(element.id, {
        name: element.name,
        assignee: element.assignee,
        owner: undefined,
        candidateGroups: element.candidateGroups,
        dueDate: element.dueDate,
        followUpDate: element.followUpDate,
        priority: element.priority,
        ...completeOnMessage(element),
        formFields,
      });
    }
    if (element.$type === 'bpmn:ServiceTask' || element.$type === 'bpmn:SendTask') {
      const inputs: Record<string, string> = {};
      for (const io of extensionValues(element, 'camunda:InputOutput')) {
        for (const parameter of (io.inputParameters ?? []) as any[]) inputs[parameter.name] = String(parameter.value ?? '');
      }
      if (!element.topic) throw new Error(`Service task ${element.id} needs camunda:type="external" and a camunda:topic naming its handler`);
      info.serviceTasks.set(element.id, { name: element.name, topic: element.topic, inputs });
    }
    if (element.flowElements) analyseElements(info, element.flowElements);
  }
}

/** Parses and analyses one definition version. */
export async function analyse(key: string, version: number, source: string): Promise<DefinitionInfo> {
  const moddle = new BpmnModdle({ camunda: camundaModdle });
  const moddleContext = await moddle.fromXML(source);
  const root = moddleContext.rootElement;
  const processes = (root.rootElements as any[]).filter((e) => e.$type === 'bpmn:Process');
  if (processes.length !== 1) throw new Error(`${key}.bpmn must hold exactly one process, it has ${processes.length}`);
  const process = processes[0];
  if (process.id !== key) throw new Error(`The process id in ${key}.bpmn must be "${key}", it is "${process.id}"`);
  const info: DefinitionInfo = {
    key,
    version,
    source,
    moddleContext,
    processName: process.name,
    names: new Map(),
    types: new Map(),
    messageIds: new Map(),
    signalIds: new Map(),
    activityMessages: new Map(),
    activitySignals: new Map(),
    userTasks: new Map(),
    serviceTasks: new Map(),
    model: compileProcess(process),
  };
  for (const element of root.rootElements as any[]) {
    if (element.$type === 'bpmn:Message') info.messageIds.set(element.name, element.id);
    if (element.$type === 'bpmn:Signal') info.signalIds.set(element.name, element.id);
  }
  analyseElements(info, process.flowElements ?? []);
  return info;
}

/** The BPMN files of a folder: key (file name without .bpmn) → source. */
export function readWorkflowFiles(directory: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!fs.existsSync(directory)) return files;
  for (const name of fs.readdirSync(directory).sort()) {
    if (name.endsWith('.bpmn')) files.set(name.slice(0, -'.bpmn'.length), fs.readFileSync(path.join(directory, name), 'utf8'));
  }
  return files;
}

/**
 * Deploys each file: an unseen content hash becomes the next version of its key. Runs under an
 * advisory lock so that several processes starting at once agree on version numbers.
 */
export async function deploy(sql: Sql, files: Map<string, string>): Promise<{ key: string; version: number; created: boolean }[]> {
  await sql.query(`select pg_advisory_xact_lock(hashtext('sanad:workflow-deploy'))`);
  const result: { key: string; version: number; created: boolean }[] = [];
  for (const [key, source] of files) {
    // Refuse a broken file, or one with elements outside the subset the interpreter runs,
    // before it becomes a version.
    const info = await analyse(key, 0, source);
    if (info.model.unsupported.length > 0) {
      throw new Error(`${key}.bpmn uses what Sanad's workflow engine does not run: ${info.model.unsupported.join('; ')}`);
    }
    const hash = contentHash(source);
    const existing = await sql.query<{ version: number }>(
      'select version from app_private.workflow_definitions where key = $1 and content_hash = $2',
      [key, hash],
    );
    if (existing.rows[0]) {
      result.push({ key, version: existing.rows[0].version, created: false });
      continue;
    }
    const inserted = await sql.query<{ version: number }>(
      `insert into app_private.workflow_definitions (key, version, content_hash, source)
       select $1, coalesce(max(version), 0) + 1, $2, $3 from app_private.workflow_definitions where key = $1
       returning version`,
      [key, hash, source],
    );
    result.push({ key, version: inserted.rows[0]!.version, created: true });
  }
  return result;
}

/** Loads definition versions on demand and keeps them parsed. */
export class DefinitionCache {
  private readonly byVersion = new Map<string, Promise<DefinitionInfo>>();

  async get(sql: Sql, key: string, version: number): Promise<DefinitionInfo> {
    const id = `${key}@${version}`;
    let entry = this.byVersion.get(id);
    if (!entry) {
      entry = (async () => {
        const { rows } = await sql.query<{ source: string }>(
          'select source from app_private.workflow_definitions where key = $1 and version = $2',
          [key, version],
        );
        if (!rows[0]) throw new Error(`Definition ${id} is not deployed`);
        return analyse(key, version, rows[0].source);
      })();
      this.byVersion.set(id, entry);
      entry.catch(() => this.byVersion.delete(id));
    }
    return entry;
  }

  /** The newest version of a key, or undefined when no such definition is deployed. */
  async latest(sql: Sql, key: string): Promise<DefinitionInfo | undefined> {
    const { rows } = await sql.query<{ version: number }>(
      'select max(version) as version from app_private.workflow_definitions where key = $1',
      [key],
    );
    const version = rows[0]?.version;
    return version ? this.get(sql, key, version) : undefined;
  }
}
