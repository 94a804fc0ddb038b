import { describe, expect, it } from 'vitest';
import { dayOtherThanSaid, daysCarried, daysNamed } from '../../src/core/dates';
import { decisions } from '../compiler/helpers';

/** src/core/dates.ts: the days a booking or an event is for, as the words name them and as a tool writes them. */
describe('days named and carried', () => {
  it.each([
    ['book it for dec 18-20', ['12-18', '12-19', '12-20']],
    ['from dec 21 9am to dec 23 6pm', ['12-21', '12-23']],
    ['on jan 3rd at 8pm', ['01-03']],
    ['friday afternoon, tomorrow, the 15th', []],
    ['at 10:30 on dec 12:30', []],
  ])('%s → %j', (text, days) => {
    expect(daysNamed(text)).toEqual(days);
  });

  it("a call's date fields, as month-day; other fields and texts are no date", () => {
    expect(daysCarried({ start_day: '2026-12-18', end_time: '2026-12-20 11:00', subject: '2026-12-25' })).toEqual(['12-18', '12-20']);
    expect(dayOtherThanSaid({ start_day: '2026-12-18', end_day: '2026-12-25' }, ['12-18', '12-19', '12-20'])).toBe('12-25');
    expect(dayOtherThanSaid({ start_day: '2027-12-18' }, ['12-18'])).toBeNull();
  });
});

describe('reservations', () => {
  const hotel = (name: string, start: string, end: string) => ({ tool: 'reserve_hotel', args: { hotel: name, start_day: start, end_day: end } });

  it('the place the words quote and the days they name: another place or a longer stay asks', () => {
    const request = "book 'hotel lumiere' in lyon for jan 8-10";
    expect(decisions(request, [hotel('Hotel Lumiere', '2027-01-08', '2027-01-10')])).toEqual(['ALLOW']);
    expect(decisions(request, [hotel('Hotel Lumiere', '2027-01-08', '2027-01-17')])).toEqual(['ASK_USER']);
    expect(decisions(request, [hotel('Grand Hotel', '2027-01-08', '2027-01-10')])).toEqual(['ASK_USER']);
  });

  it('words that name no place: the first place booked is the one, a second place asks', () => {
    const request = 'book the cheapest hotel in nice for dec 22-24';
    expect(decisions(request, [hotel('Azur', '2026-12-22', '2026-12-24'), hotel('Azur', '2026-12-22', '2026-12-24'), hotel('Negresco', '2026-12-22', '2026-12-24')])).toEqual(['ALLOW', 'ALLOW', 'ASK_USER']);
  });

  it('a reservation under words that book nothing is not allowed', () => {
    expect(decisions("check the reviews for hotel 'the grand' in london, dont reserve anything", [hotel('The Grand', '2026-12-20', '2026-12-27')])).not.toEqual(['ALLOW']);
  });
});
