import { describe, expect, it } from 'vitest';
import { auditChanges, mentionedPeople, auditSentence } from './audit';

describe('audit changes', () => {
  it('lists the changed keys of an update with before and after, without bookkeeping', () => {
    const changes = auditChanges(
      'UPDATE',
      { id: 'c', title: 'Old', stage: 'screening', is_dropout: false, updated_at: '1', search_text: 'a' },
      { id: 'c', title: 'New', stage: 'screening', is_dropout: true, updated_at: '2', search_text: 'b' },
    );
    expect(changes).toEqual([
      { key: 'title', before: 'Old', after: 'New' },
      { key: 'is_dropout', before: false, after: true },
    ]);
  });

  it('lists what a new row holds, leaving out empty and false values', () => {
    const changes = auditChanges('INSERT', null, { id: 'm', user_id: 'u', acts_as_therapist: true, acts_as_patient: false, favorite_message: null, new_messages_after: '-infinity' });
    expect(changes).toEqual([
      { key: 'user_id', before: null, after: 'u' },
      { key: 'acts_as_therapist', before: null, after: true },
    ]);
  });

  it('lists what a deleted row held', () => {
    expect(auditChanges('DELETE', { id: 'm', user_id: 'u', acts_as_supervisor: true }, null)).toEqual([
      { key: 'user_id', before: 'u', after: null },
      { key: 'acts_as_supervisor', before: true, after: null },
    ]);
  });

  it('compares nested values by content', () => {
    expect(auditChanges('UPDATE', { data: { a: 1 } }, { data: { a: 1 } })).toEqual([]);
  });

  it('finds the people a row mentions', () => {
    expect(mentionedPeople({ user_id: 'a' }, { user_id: 'a', sender_id: 'b' })).toEqual(['a', 'b']);
    expect(mentionedPeople(null, null)).toEqual([]);
  });
});

describe('auditSentence', () => {
  it('tells membership, stage, message and field changes as sentences', () => {
    expect(auditSentence({ tableName: 'case_members', operation: 'INSERT', oldData: null, newData: { user_id: 'u1', acts_as_therapist: true } })).toEqual({ kind: 'memberAdded', member: 'u1', roles: ['therapist'] });
    expect(auditSentence({ tableName: 'case_members', operation: 'DELETE', oldData: { user_id: 'u1' }, newData: null })).toEqual({ kind: 'memberRemoved', member: 'u1' });
    expect(auditSentence({ tableName: 'cases', operation: 'UPDATE', oldData: { stage: 'screening' }, newData: { stage: 'interview' } })).toEqual({ kind: 'stage', from: 'screening', to: 'interview' });
    expect(auditSentence({ tableName: 'case_messages', operation: 'UPDATE', oldData: { sent_at: null }, newData: { sent_at: '2026-11-01T10:00:00Z' } })).toEqual({ kind: 'messageSent' });
    expect(auditSentence({ tableName: 'cases', operation: 'UPDATE', oldData: { title: 'a' }, newData: { title: 'b' } })).toEqual({ kind: 'caseFields', fields: ['title'] });
    expect(auditSentence({ tableName: 'workflow_instances', operation: 'UPDATE', oldData: {}, newData: {} })).toEqual({ kind: 'other', table: 'workflow_instances', operation: 'UPDATE' });
  });
});
