/**
 * The legacy step runner: bpmn-engine, for instances whose stored state it wrote before Sanad's
 * own interpreter (engine-interpreter.ts) ran every new instance. It recovers bpmn-engine from
 * the stored state, applies the event, runs until it waits, and returns the same plain data as
 * the interpreter. Such instances finish here; docs/WORKFLOW.md ("Two runners") gives the query
 * that tells when none is left and this file with its dependencies can go.
 */
import { Engine } from 'bpmn-engine';
import { Activity, Timers } from 'bpmn-elements';
import * as gateways from 'bpmn-elements/gateways';
import { camundaModdle, type DefinitionInfo } from './definitions';
import { hasExpression, isExpression, resolve } from './expressions';
import { plainValues, type TypedVariables } from './variables';
import {
  runService,
  taskAttributes,
  type Advanced,
  type HistoryEntry,
  type InstanceRecord,
  type JobMap,
  type StepEvent,
  type StepSettings,
  type TaskAttributes,
  type WaitingActivity,
  type WaitingTimer,
} from './engine-common';

/**
 * An inclusive gateway with several incoming flows is an OR-join (BPMN): it waits until every
 * incoming path was taken or found dead, then continues once. bpmn-elements treats only
 * parallel gateways as joins (with dead-path elimination: they run when any path was taken);
 * giving inclusive gateways that behaviour makes merges after interrupting boundary events
 * absorb the discarded path instead of letting it trail the token.
 */
function InclusiveJoin(activityDef: any, context: any) {
  return new (Activity as any)((gateways as any).InclusiveGatewayBehaviour, { ...activityDef, isParallelGateway: true }, context);
}

/** Quiet logger for bpmn-engine: the host logs what matters. One shared object: it is asked for per element. */
const noop = () => undefined;
const QUIET = { debug: noop, error: noop, warn: noop };
function Logger() {
  return QUIET;
}

const ELEMENTS = { InclusiveGateway: InclusiveJoin };

/**
 * disableTrackState: getState() leaves out the activities and flows that hold nothing (no queued
 * message: idle, or done with nothing pending), so the stored state is about 10 KB instead of
 * 23 KB for the trial and recover() restores only what is under way. What is left out is the
 * taken/discarded counters of idle elements, which nothing here reads; a recovered element
 * without a stored state starts idle, as it was.
 */
const SETTINGS = { disableTrackState: true };

/**
 * The serialized definition (moddle-context-serializer's context: element definitions with
 * their behaviour types) that every Engine of a definition version starts from. Building it
 * walks the whole moddle tree, so it is built once per version and shared: the engines only
 * read it (activities copy what they change). Same element types as each step's engine.
 */
const sourceContexts = new WeakMap<DefinitionInfo, unknown>();
function sourceContextOf(def: DefinitionInfo): unknown {
  let context = sourceContexts.get(def);
  if (!context) {
    const builder = new Engine({ moddleOptions: { camunda: camundaModdle }, Logger, elements: ELEMENTS } as any) as any;
    // getState() would serialize the whole definition into every state, only for persist to
    // drop it again (a running instance keeps its deployed version): serialize to nothing.
    context = Object.create(builder._serializeModdleContext(def.moddleContext), { serialize: { value: () => undefined } });
    sourceContexts.set(def, context);
  }
  return context;
}

interface ServiceCall {
  activityId: string;
  executionId: string;
  callback: (err: Error | null, ...output: unknown[]) => void;
}

/** Recovers the engine, applies the event, runs the services until it waits again. */
export async function advanceLegacy(settings: StepSettings, def: DefinitionInfo, instance: InstanceRecord, event: StepEvent): Promise<Advanced> {
  const { clock } = settings;
  const variables: TypedVariables = { ...instance.variables };
  const jobs: JobMap = new Map(instance.jobs.map((j) => [j.executionId, { kind: j.kind, attempts: j.attempts }]));
  const scope = () => plainValues(variables);
  const merge = (incoming: TypedVariables) => Object.assign(variables, incoming);

  const serviceQueue: ServiceCall[] = [];
  const history = new Map<string, HistoryEntry>();
  const entered = new Map<string, TaskAttributes>();
  const errors: unknown[] = [];
  let matched = event.kind === 'start';
  const completedByMessage = new Set<string>();

  const timers = new Timers({
    setTimeout: ((fn: (...args: unknown[]) => void, delay: number, ...args: unknown[]) => ({ fn, args, delay })) as any,
    clearTimeout: (() => undefined) as any,
  });

  const engine = new Engine({
    name: instance.id,
    sourceContext: sourceContextOf(def),
    moddleOptions: { camunda: camundaModdle },
    timers,
    Logger,
    elements: ELEMENTS,
    settings: SETTINGS,
    expressions: {
      resolveExpression: (expression: string) => resolve(expression, scope()),
      isExpression,
      hasExpression,
    },
    extensions: {
      sanad(activity: any) {
        if (def.serviceTasks.has(activity.id)) {
          activity.behaviour.Service = function SanadService() {
            return {
              execute(message: any, callback: ServiceCall['callback']) {
                serviceQueue.push({ activityId: activity.id, executionId: message.content.executionId, callback });
              },
            };
          };
        }
        return undefined;
      },
    },
  } as any);

  engine.on('error', (error: unknown) => errors.push(error));
  engine.broker.subscribeTmp(
    'event',
    'activity.#',
    (routingKey: string, message: any) => {
      const content = message.content;
      const executionId: string | undefined = content.executionId;
      if (!executionId || !content.id) return;
      if (routingKey === 'activity.start') {
        const entry: HistoryEntry = history.get(executionId) ?? { activityId: String(content.id), type: String(content.type) };
        entry.start ??= clock.now();
        history.set(executionId, entry);
      } else if (routingKey === 'activity.end' || routingKey === 'activity.leave' && !history.get(executionId)?.end) {
        const entry: HistoryEntry = history.get(executionId) ?? { activityId: String(content.id), type: String(content.type) };
        entry.end ??= clock.now();
        history.set(executionId, entry);
      } else if (routingKey === 'activity.wait' && content.type === 'bpmn:UserTask') {
        try {
          entered.set(executionId, taskAttributes(def, content.id, scope(), clock.now()));
        } catch (error) {
          errors.push(error);
        }
      }
    },
    { noAck: true },
  );

  // Run services one at a time on the step's connection; each behind a savepoint.
  const runServices = async () => {
    for (;;) {
      while (serviceQueue.length > 0) {
        const call = serviceQueue.shift()!;
        const result = await runService(settings, def, instance, call, variables, event, jobs);
        // A failed service gets no callback: the service task keeps waiting for its retry job.
        if (result.kind === 'done') call.callback(null, result.output);
      }
      // Let the engine finish what it deferred, then look again.
      await new Promise((resolve) => setImmediate(resolve));
      if (serviceQueue.length === 0) return;
    }
  };

  if (instance.engineState) {
    engine.recover(instance.engineState);
    await engine.resume();
  } else {
    await engine.execute();
  }
  await runServices();

  const postponed = () => expandPostponed((engine.execution?.getPostponed() ?? []) as any[]);
  switch (event.kind) {
    case 'start':
    case 'retry':
    case 'external':
      matched = true;
      break;
    case 'completeTask': {
      const task = postponed().find((a) => a.executionId === event.executionId && a.type === 'bpmn:UserTask');
      if (task) {
        matched = true;
        merge(event.variables);
        task.signal({ variables: plainValues(event.variables) });
      }
      break;
    }
    case 'signalExecution': {
      const waiting = postponed().find((a) => a.executionId === event.executionId && a.type !== 'bpmn:UserTask');
      if (waiting) {
        matched = true;
        merge(event.variables);
        waiting.signal({ variables: plainValues(event.variables) });
      }
      break;
    }
    case 'message': {
      const waits = postponed().some((a) => def.activityMessages.get(a.id) === event.messageName);
      const messageId = def.messageIds.get(event.messageName);
      // User tasks that a message completes (camunda:property completeOnMessage).
      const tasks = postponed().filter((a) => {
        const info = a.type === 'bpmn:UserTask' ? def.userTasks.get(a.id) : undefined;
        if (info?.completeOnMessage !== event.messageName) return false;
        // completeOnMessageMatching: only the message meant for this task (same variable values).
        return (info.completeOnMessageMatching ?? []).every(
          (name) => variables[name] !== undefined && event.variables?.[name]?.value === variables[name]!.value,
        );
      });
      if ((waits && messageId) || tasks.length > 0) {
        matched = true;
        merge(event.variables);
        for (const task of tasks) {
          completedByMessage.add(String(task.executionId));
          task.signal({ variables: plainValues(event.variables) });
        }
        if (waits && messageId) engine.execution!.signal({ id: messageId });
      }
      break;
    }
    case 'signal': {
      const waits = postponed().some((a) => def.activitySignals.get(a.id) === event.signalName);
      const signalId = def.signalIds.get(event.signalName);
      if (waits && signalId) {
        matched = true;
        merge(event.variables);
        engine.execution!.signal({ id: signalId });
      }
      break;
    }
    case 'timer': {
      const ref = (timers.executing as any[]).find((t) => t.owner?.executionId === event.executionId);
      if (ref) {
        matched = true;
        // Timers.setTimeout leaves timerRef empty for delays over 2^31 ms (about 25 days), so
        // call the timer's own callback, after taking it off the running timers.
        timers.clearTimeout(ref);
        ref.callback(...((ref.args ?? []) as unknown[]));
      }
      break;
    }
  }
  await runServices();

  if (errors.length > 0) {
    const first = errors[0];
    throw first instanceof Error ? first : new Error(String(first));
  }

  const waiting: WaitingActivity[] = postponed().map((a) => ({ id: String(a.id), type: String(a.type), executionId: String(a.executionId) }));
  const completed = waiting.length === 0;
  const endTime = clock.now();
  let engineState: string | null = null;
  if (!completed) {
    // The definition's source is the deployed version's: never stored with an instance.
    const state = await engine.getState();
    for (const definition of state.definitions ?? []) delete definition.source;
    engineState = JSON.stringify(state);
  }
  const waitingTimers: WaitingTimer[] = completed
    ? []
    : (timers.executing as any[])
        .filter((t) => t.owner?.executionId)
        .map((t) => ({
          activityId: String(t.owner.id),
          executionId: String(t.owner.executionId),
          timerType: t.owner.timerType,
          expireAt: t.owner.expireAt,
          timeDuration: t.owner.timeDuration,
          delay: t.delay,
        }));
  // No engine.stop(): stopping walks every activity and costs as much as a resume. Nothing
  // outlives the step (timers are job rows, never real timeouts), so the engine is just dropped.
  return {
    matched,
    completed,
    engineState,
    waiting,
    timers: waitingTimers,
    jobs,
    variables,
    history,
    entered,
    completedExecution: event.kind === 'completeTask' && matched ? event : undefined,
    completedByMessage,
    endTime,
  };
}

/** The waiting activities, with those inside running sub-processes. */
function expandPostponed(list: any[], seen = new Set<string>()): any[] {
  const result: any[] = [];
  for (const api of list) {
    const executionId = String(api.executionId);
    if (seen.has(executionId)) continue;
    seen.add(executionId);
    result.push(api);
    if (api.type === 'bpmn:SubProcess' && typeof api.getPostponed === 'function') {
      result.push(...expandPostponed(api.getPostponed() as any[], seen));
    }
  }
  return result;
}

