import { businessHoursProblem, isOpenAt, type BusinessHours } from '../../src/inboxes/business-hours';

const BERLIN: BusinessHours = {
  timezone: 'Europe/Berlin',
  days: {
    mon: [
      ['09:00', '12:30'],
      ['13:30', '17:30'],
    ],
    fri: [['09:00', '24:00']],
  },
  holidays: ['2026-12-25'],
};

describe('business hours', () => {
  it('is always open without business hours', () => {
    expect(isOpenAt(null, new Date('2026-11-29T03:00:00Z'))).toBe(true);
  });

  it('is open inside an interval of the day in the inbox’s zone, and closed before, between and at its end', () => {
    // Monday 30 November 2026; Berlin is UTC+1 in winter.
    expect(isOpenAt(BERLIN, new Date('2026-11-30T08:00:00Z'))).toBe(true); // 09:00
    expect(isOpenAt(BERLIN, new Date('2026-11-30T07:59:00Z'))).toBe(false); // 08:59
    expect(isOpenAt(BERLIN, new Date('2026-11-30T12:00:00Z'))).toBe(false); // 13:00, the lunch break
    expect(isOpenAt(BERLIN, new Date('2026-11-30T12:30:00Z'))).toBe(true); // 13:30
    expect(isOpenAt(BERLIN, new Date('2026-11-30T16:30:00Z'))).toBe(false); // 17:30, the end is not inside
  });

  it('keeps wall-clock hours across the change to summer time', () => {
    // Monday 30 March 2026: Berlin is UTC+2.
    expect(isOpenAt(BERLIN, new Date('2026-03-30T07:00:00Z'))).toBe(true); // 09:00
    expect(isOpenAt(BERLIN, new Date('2026-03-30T06:30:00Z'))).toBe(false); // 08:30
  });

  it('is closed on a day without intervals and on a holiday, and open until midnight with 24:00', () => {
    expect(isOpenAt(BERLIN, new Date('2026-11-29T10:00:00Z'))).toBe(false); // Sunday
    expect(isOpenAt(BERLIN, new Date('2026-12-25T10:00:00Z'))).toBe(false); // Friday, a holiday
    expect(isOpenAt(BERLIN, new Date('2026-12-18T22:59:00Z'))).toBe(true); // Friday 23:59
    expect(isOpenAt(BERLIN, new Date('2026-12-18T23:00:00Z'))).toBe(false); // Saturday 00:00
  });

  it('accepts well-formed hours and names the first wrong field of others', () => {
    expect(businessHoursProblem(BERLIN)).toBeNull();
    expect(businessHoursProblem({ ...BERLIN, timezone: 'Mars/Olympus' })).toContain('business_hours.timezone');
    expect(businessHoursProblem({ ...BERLIN, days: { funday: [] } })).toContain('business_hours.days.funday is not a weekday');
    expect(businessHoursProblem({ ...BERLIN, days: { mon: [['10:00', '09:00']] } })).toContain('must start before it ends');
    expect(
      businessHoursProblem({
        ...BERLIN,
        days: {
          mon: [
            ['09:00', '12:00'],
            ['11:00', '13:00'],
          ],
        },
      }),
    ).toContain('must not overlap');
    expect(businessHoursProblem({ ...BERLIN, days: { mon: [['9:00', '12:00']] } })).toContain(
      'business_hours.days.mon must hold intervals',
    );
    expect(businessHoursProblem({ ...BERLIN, holidays: ['25/12/2026'] })).toContain('business_hours.holidays');
    expect(businessHoursProblem({ ...BERLIN, holidays: ['2026-02-30'] })).toContain('business_hours.holidays');
    expect(businessHoursProblem({ ...BERLIN, holidays: ['2028-02-29'] })).toBeNull();
    expect(businessHoursProblem({ ...BERLIN, extra: 1 })).toContain('business_hours.extra is not a field');
    expect(businessHoursProblem('always')).toBe('business_hours must be an object or null');
  });
});
