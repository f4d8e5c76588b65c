/**
 * The workflow reads of spec §7 as REST collections (/api/my_running_processes, …), read-only
 * views under row-level security: each person sees the processes of their cases.
 */
import { defineCollection } from '../rest';

export const MY_RUNNING_PROCESSES = defineCollection({
  name: 'my_running_processes',
  table: 'app_public.my_running_processes',
  methods: ['GET'],
  columns: {
    id: 'uuid',
    business_key: 'text',
    definition_key: 'text',
    definition_version: 'int',
    case_id: 'uuid',
    start_time: 'timestamptz',
    end_time: 'timestamptz',
    state: 'text',
    pending_timers: 'int',
  },
  defaultOrder: [{ column: 'start_time', dir: 'desc' }, { column: 'id' }],
  maxRows: 2000,
});

export const MY_TASK_LOG = defineCollection({
  name: 'my_task_log',
  table: 'app_public.my_task_log',
  methods: ['GET'],
  columns: {
    id: 'uuid',
    process_instance_id: 'uuid',
    case_id: 'uuid',
    task_definition_key: 'text',
    name: 'text',
    assignee: 'text',
    candidate_groups: 'text[]',
    due: 'timestamptz',
    follow_up: 'timestamptz',
    priority: 'int',
    created: 'timestamptz',
    end_time: 'timestamptz',
    delete_reason: 'text',
  },
  defaultOrder: [{ column: 'end_time', dir: 'desc', nulls: 'first' }, { column: 'created', dir: 'desc' }, { column: 'id' }],
  maxRows: 2000,
});

const HISTORY_COLUMNS = {
  id: 'uuid',
  process_instance_id: 'uuid',
  case_id: 'uuid',
  activity_id: 'text',
  activity_name: 'text',
  activity_type: 'text',
  start_time: 'timestamptz',
  end_time: 'timestamptz',
} as const;

export const MY_PROCESS_LOG = defineCollection({
  name: 'my_process_log',
  table: 'app_public.my_process_log',
  methods: ['GET'],
  columns: HISTORY_COLUMNS,
  defaultOrder: [{ column: 'start_time', dir: 'desc' }, { column: 'id' }],
  maxRows: 5000,
});

export const MY_GATEWAYS = defineCollection({
  name: 'my_gateways',
  table: 'app_public.my_gateways',
  methods: ['GET'],
  columns: HISTORY_COLUMNS,
  defaultOrder: [{ column: 'end_time', dir: 'desc', nulls: 'first' }, { column: 'id' }],
  maxRows: 2000,
});

export const MY_DATES = defineCollection({
  name: 'my_dates',
  table: 'app_public.my_dates',
  methods: ['GET'],
  columns: {
    id: 'uuid',
    case_id: 'uuid',
    process_instance_id: 'uuid',
    name: 'text',
    label: 'text',
    timestamp: 'timestamptz',
  },
  defaultOrder: [{ column: 'timestamp', dir: 'asc' }, { column: 'id' }],
  maxRows: 2000,
});

export const WORKFLOW_COLLECTIONS = [MY_RUNNING_PROCESSES, MY_TASK_LOG, MY_PROCESS_LOG, MY_GATEWAYS, MY_DATES];
