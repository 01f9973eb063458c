import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/errors.ts';
import { membershipEventId, parseMembershipEvent } from '../../../lib/webhooks/membership-events.ts';

const received = new Date('2026-03-01T10:00:00Z');
const parse = (body: unknown) => parseMembershipEvent(JSON.stringify(body), received);
const refused = (raw: string) => {
  try {
    parseMembershipEvent(raw, received);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return error as InvalidInput;
  }
  throw new Error('expected a refusal');
};

describe('reading Memberstack events', () => {
  it('reads member.created under payload or data, with its plans, name and custom fields', () => {
    const body = {
      event: 'member.created',
      timestamp: 1633486880169,
      payload: {
        id: 'mem_1',
        auth: { email: 'Ann@Example.com' },
        customFields: { 'first-name': 'Ann', 'last-name': 'Lee', age: 40, nested: { no: 1 } },
        metaData: { x: 1 },
        planConnections: [{ id: 'con_1', planId: 'pln_pro', status: 'active', type: 'subscription', active: true }],
      },
    };
    const expected = {
      type: 'member.created',
      memberId: 'mem_1',
      email: 'ann@example.com',
      at: 1633486880169,
      name: 'Ann Lee',
      customFields: { 'first-name': 'Ann', 'last-name': 'Lee', age: 40 },
      plans: [{ id: 'con_1', planId: 'pln_pro', status: 'ACTIVE', type: 'SUBSCRIPTION', active: true }],
    };
    expect(parse(body)).toEqual({ handled: true, event: expected });
    const { payload, ...rest } = body;
    expect(parse({ ...rest, data: payload })).toEqual({ handled: true, event: expected });
  });

  it('reads plan events, also spelled member.planConnection.*, and deletions carrying only the id', () => {
    const plan = { id: 'mem_1', planConnection: { id: 'con_1', planId: 'pln_pro', status: 'CANCELED', type: 'SUBSCRIPTION', active: false } };
    expect(parse({ event: 'member.planConnection.canceled', timestamp: 5, payload: plan })).toEqual({
      handled: true,
      event: { type: 'member.plan.canceled', memberId: 'mem_1', at: 5, plan: { id: 'con_1', planId: 'pln_pro', status: 'CANCELED', type: 'SUBSCRIPTION', active: false } },
    });
    expect(parse({ event: 'member.deleted', timestamp: 6, data: { id: 'mem_1' } })).toEqual({ handled: true, event: { type: 'member.deleted', memberId: 'mem_1', at: 6 } });
  });

  it('places an event without a timestamp at its arrival', () => {
    const parsed = parse({ event: 'member.deleted', payload: { id: 'mem_1' } });
    expect(parsed.handled && parsed.event.at).toBe(received.getTime());
  });

  it('leaves other event types to be ignored', () => {
    expect(parse({ event: 'team.member.added', payload: {} })).toEqual({ handled: false, type: 'team.member.added' });
  });

  it('knows no event named after a property every object has, whatever the body carries', () => {
    const member = { id: 'mem_1', auth: { email: 'mo@example.org' }, planConnection: { id: 'con_1', active: true } };
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(parse({ event: name, payload: member }), name).toEqual({ handled: false, type: name });
    }
  });

  it('refuses a plan connection whose id the store could not hold as a key, such as constructor', () => {
    for (const id of ['constructor', '__proto__', 'prototype']) {
      expect(refused(JSON.stringify({ event: 'member.plan.created', payload: { id: 'mem_1', planConnection: { id, active: true } } })).details, id).toEqual([
        { path: '/payload/planConnection/id', message: 'is not a plan connection id' },
      ]);
    }
  });

  it('refuses bodies it cannot read, saying where', () => {
    expect(refused('not json').code).toBe('malformed_json');
    expect(refused('[]').details).toEqual([{ path: '/event', message: 'is required' }]);
    expect(refused(JSON.stringify({ event: 'member.created' })).details).toEqual([{ path: '/payload', message: 'is required (an object, also accepted as /data)' }]);
    const noEmail = refused(JSON.stringify({ event: 'member.updated', payload: { id: 'mem_1', auth: {} } }));
    expect(noEmail.code).toBe('invalid_payload');
    expect(noEmail.details).toEqual([{ path: '/payload/auth/email', message: 'is required' }]);
    expect(refused(JSON.stringify({ event: 'member.created', payload: { id: 'mem_1', auth: { email: 'not-an-address' } } })).details).toEqual([
      { path: '/payload/auth/email', message: 'is not an e-mail address' },
    ]);
    expect(refused(JSON.stringify({ event: 'member.plan.created', payload: { id: 'mem_1' } })).details).toEqual([{ path: '/payload/planConnection/id', message: 'is required' }]);
    expect(refused(JSON.stringify({ event: 'member.deleted', payload: {} })).details).toEqual([{ path: '/payload/id', message: 'is required' }]);
  });
});

describe('what makes two membership deliveries the same event', () => {
  const event = { type: 'member.plan.updated' as const, memberId: 'mem_1', at: 10, plan: { id: 'con_1', active: true } };

  it("is Svix's message id when there is one", () => {
    expect(membershipEventId(event, 'msg_abc')).toBe('svix:msg_abc');
    expect(membershipEventId({ ...event, at: 11 }, 'msg_abc')).toBe('svix:msg_abc');
  });

  it("is otherwise the event's type, member, plan connection and firing time", () => {
    const id = membershipEventId(event, undefined);
    expect(membershipEventId({ ...event }, undefined)).toBe(id);
    expect(membershipEventId({ ...event, at: 11 }, undefined)).not.toBe(id);
    expect(membershipEventId({ ...event, plan: { id: 'con_2', active: true } }, undefined)).not.toBe(id);
    expect(membershipEventId({ ...event, type: 'member.plan.created' }, undefined)).not.toBe(id);
    expect(membershipEventId(event, 'not a valid id!')).toBe(id);
  });
});
