import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { RestError } from './errors';
import { defineCollection, type Row } from './registry';
import { contentRange, rangeStatus, registerRestCollections } from './routes';

describe('Content-Range and the status of a read', () => {
  it('names the rows returned and the total when counted', () => {
    expect(contentRange(0, 25, 3573)).toBe('0-24/3573');
    expect(contentRange(10, 5, null)).toBe('10-14/*');
    expect(contentRange(0, 0, 0)).toBe('*/0');
    expect(contentRange(7, 0, null)).toBe('*/*');
  });

  it('answers 206 for part of the rows and 416 past the end, as PostgREST does', () => {
    expect(rangeStatus(0, 25, null)).toBe(200);
    expect(rangeStatus(0, 4, 4)).toBe(200);
    expect(rangeStatus(0, 0, 0)).toBe(200);
    expect(rangeStatus(0, 2, 4)).toBe(206);
    expect(rangeStatus(4, 0, 4)).toBe(206);
    expect(rangeStatus(5, 0, 4)).toBe(416);
  });
});

describe('a write with afterWrite and readFrom', () => {
  const ID = '3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c';

  /** A pool whose one client records each statement and answers like PostgreSQL would. */
  function recordingPool(log: string[]) {
    const client = {
      async query(statement: string | { text: string }) {
        const text = typeof statement === 'string' ? statement : statement.text;
        if (text.startsWith('insert')) {
          log.push('insert');
          return { rows: [{ id: ID, row: JSON.stringify({ id: ID, n: 1 }) }], rowCount: 1 };
        }
        if (text.includes('"app_public"."things_view" where "id" = any')) {
          log.push(`read back ${text.startsWith('select coalesce(json_agg(_r)') && text.includes('select "n"') ? 'answer' : 'stored row'}`);
          return { rows: [{ body: JSON.stringify([{ id: ID, n: 1 }]), n: 1 }], rowCount: 1 };
        }
        log.push(text.split(' ')[0]!);
        return { rows: [], rowCount: 0 };
      },
      release() {},
    };
    return { connect: async () => client } as unknown as pg.Pool;
  }

  async function appWith(afterWrite: (row: Row) => void, log: string[], writeReturns?: 'id'[]) {
    const app = Fastify();
    const things = defineCollection({
      name: 'things',
      table: 'app_public.things',
      readFrom: 'app_public.things_view',
      columns: { id: 'uuid', n: 'int' },
      writable: ['n'],
      methods: ['POST'],
      afterWrite,
      writeReturns,
    });
    await registerRestCollections(app, recordingPool(log), [things]);
    return app;
  }

  const post = (app: FastifyInstance) =>
    app.inject({ method: 'POST', url: '/api/things?select=n', headers: { prefer: 'return=representation', 'content-type': 'application/json' }, payload: { n: 1 } });

  it('hands each stored row to afterWrite, then answers with the rows read after it, in one transaction', async () => {
    const log: string[] = [];
    const seen: Row[] = [];
    const app = await appWith((row) => {
      seen.push(row);
      log.push('afterWrite');
    }, log);
    const response = await post(app);
    expect(response.statusCode).toBe(201);
    expect(seen).toEqual([{ id: ID, n: 1 }]);
    expect(log).toEqual(['begin;', 'insert', 'read back stored row', 'afterWrite', 'read back answer', 'commit']);
  });

  it('with writeReturns, hands afterWrite the row the write returned, without reading it back', async () => {
    const log: string[] = [];
    const seen: Row[] = [];
    const app = await appWith((row) => {
      seen.push(row);
      log.push('afterWrite');
    }, log, ['id']);
    const response = await post(app);
    expect(response.statusCode).toBe(201);
    expect(seen).toEqual([{ id: ID, n: 1 }]);
    expect(log).toEqual(['begin;', 'insert', 'afterWrite', 'read back answer', 'commit']);
  });

  it('rolls the write back when afterWrite refuses it', async () => {
    const log: string[] = [];
    const app = await appWith(() => {
      throw new RestError(400, '23514', 'No.');
    }, log);
    const response = await post(app);
    expect([response.statusCode, response.json().code]).toEqual([400, '23514']);
    expect(log).toEqual(['begin;', 'insert', 'read back stored row', 'rollback']);
  });
});
