// camunda-external-task-client-js ships no types; the integration test uses this much of it.
declare module 'camunda-external-task-client-js' {
  export interface LockedTask {
    id: string;
    activityId: string;
    variables: { get(name: string): unknown };
  }
  export interface TaskService {
    complete(task: LockedTask, variables?: Variables, localVariables?: Variables): Promise<void>;
  }
  export class Variables {
    set(name: string, value: unknown): this;
  }
  export class Client {
    constructor(options: Record<string, unknown>);
    subscribe(topic: string, options: Record<string, unknown>, handler: (args: { task: LockedTask; taskService: TaskService }) => Promise<void>): unknown;
    on(event: string, listener: (...args: unknown[]) => void): this;
    start(): void;
    stop(): void;
  }
}
