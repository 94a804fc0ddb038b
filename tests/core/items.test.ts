import { describe, expect, it } from 'vitest';
import { classify } from '../../src/core/classifier';
import { itemMatches, itemsCovered, itemWords } from '../../src/core/items';

describe('item matching', () => {
  it('matches by words, whatever the spelling', () => {
    expect(itemWords('USB-C Cables')).toEqual(['usb', 'c', 'cable']);
    expect(itemMatches('usb-c-cable', 'USB-C cable')).toBe(true);
    expect(itemMatches('USB_C  cables', 'usb-c cable')).toBe(true);
    expect(itemMatches('Q3-plan.docx', 'q3 plan.docx')).toBe(true);
  });

  it('lets one trailing file extension differ, and nothing else', () => {
    expect(itemMatches('old-draft.txt', 'old-draft')).toBe(true);
    expect(itemMatches('old-draft', 'old-draft.txt')).toBe(true);
    expect(itemMatches('old-draft.txt', 'old-draft.pdf')).toBe(true);
    expect(itemMatches('old-draft-2.txt', 'old-draft.txt')).toBe(false);
    expect(itemMatches('usb-c-cable-10-pack', 'USB-C cable')).toBe(false);
    expect(itemMatches('cable', 'USB-C cable')).toBe(false);
    expect(itemMatches('gift-card-500', 'USB-C cable')).toBe(false);
  });

  it('an action whose item cannot be read is never covered', () => {
    expect(itemMatches('', 'x')).toBe(false);
    expect(itemMatches('---', '---')).toBe(false);
    expect(itemsCovered([], ['old-draft.txt'])).toBe(false);
    expect(itemsCovered(['old-draft.txt', 'contracts.pdf'], ['old-draft.txt'])).toBe(false);
    expect(itemsCovered(['old-draft.txt'], ['notes.txt', 'old-draft.txt'])).toBe(true);
  });
});

describe('items a web action names', () => {
  const form = (fields: Record<string, string>, url = 'https://shop.test/order') =>
    classify({ tool: 'browser.form_submit', args: { url, method: 'POST', fields, submitText: 'Place order' } });
  const request = (url: string, method: string, body?: string) => classify({ tool: 'browser.request', args: { url, method, kind: 'fetch', ...(body === undefined ? {} : { body }) } });

  it('reads item and file fields of a form, not free text', () => {
    expect(form({ sku: 'gift-card-500', qty: '1', note: 'the USB-C cable' }).targets.items).toEqual(['gift-card-500']);
    expect(form({ path: 'contracts.pdf' }, 'https://drive.test/delete').targets.items).toEqual(['contracts.pdf']);
    expect(form({ file: 'Q3-plan.docx', email: 'dave@corp.test' }, 'https://drive.test/share').targets).toMatchObject({ items: ['Q3-plan.docx'], recipients: ['dave@corp.test'] });
    expect(form({ message: 'sku=gift-card-500' }).targets.items).toEqual([]);
  });

  it('reads JSON bodies, the query string and the last segment of a REST DELETE', () => {
    expect(request('https://shop.test/api/cart', 'POST', JSON.stringify({ items: [{ productId: 'p-1' }, { productId: 'p-2' }] })).targets.items).toEqual(['p-1', 'p-2']);
    expect(request('https://shop.test/api/order?sku=gift-card-500', 'POST', '{}').targets.items).toEqual(['gift-card-500']);
    expect(request('https://drive.test/api/files/contracts.pdf', 'DELETE').targets.items).toEqual(['contracts.pdf']);
  });

  it('does not read local paths of tool calls as items', () => {
    expect(classify({ tool: 'delete_file', args: { path: '/tmp/x' } }).targets).toMatchObject({ paths: ['/tmp/x'], items: [] });
  });
});
