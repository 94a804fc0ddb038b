import { describe, expect, it } from 'vitest';
import { classify } from '../../src/tools';
import { UNREADABLE_ITEM } from '../../src/core/classifier/targets';
import { itemMatches, itemsCovered, itemWords } from '../../src/core/items';

describe('item matching', () => {
  it('matches products by words, whatever the spelling', () => {
    expect(itemWords('USB-C Cables')).toEqual(['usb', 'c', 'cable']);
    expect(itemMatches('usb-c-cable', 'USB-C cable')).toBe(true);
    expect(itemMatches('USB_C  cables', 'usb-c cable')).toBe(true);
    expect(itemMatches('usb-c-cable-10-pack', 'USB-C cable')).toBe(false);
    expect(itemMatches('cable', 'USB-C cable')).toBe(false);
    expect(itemMatches('gift-card-500', 'USB-C cable')).toBe(false);
  });

  it('matches files by name: the extension may be left off, never changed', () => {
    expect(itemMatches('OLD-DRAFT.txt', 'old-draft.txt')).toBe(true);
    expect(itemMatches('old-draft', 'old-draft.txt')).toBe(true);
    expect(itemMatches('old-draft.txt', 'old-draft')).toBe(true);
    expect(itemMatches('old-draft.pdf', 'old-draft.txt')).toBe(false);
    expect(itemMatches('report.xlsx', 'report.pdf')).toBe(false);
    expect(itemMatches('old_drafts.txt', 'old-draft.txt')).toBe(false);
    expect(itemMatches('old-draft-2.txt', 'old-draft.txt')).toBe(false);
  });

  it('never reads a path as words, and keeps letters of every script', () => {
    expect(itemMatches('old/draft.txt', 'old-draft.txt')).toBe(false);
    expect(itemMatches('../old-draft.txt', 'old-draft.txt')).toBe(false);
    expect(itemMatches('old\\draft', 'old draft')).toBe(false);
    expect(itemWords('Отчёт-2024.pdf')).toEqual(['отчёт', '2024', 'pdf']);
    expect(itemMatches('机密.txt', '旧草稿.txt')).toBe(false);
    expect(itemMatches('旧草稿.txt', '旧草稿.txt')).toBe(true);
    expect(itemMatches('机密.txt', 'txt')).toBe(false);
  });

  it('an action whose item cannot be read is never covered', () => {
    expect(itemMatches('', 'x')).toBe(false);
    expect(itemMatches('---', '---x')).toBe(false);
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

  it('reads JSON bodies, compound item keys, the query string, file names in the path and a REST DELETE', () => {
    expect(request('https://shop.test/api/cart', 'POST', JSON.stringify({ items: [{ productId: 'p-1' }, { productId: 'p-2' }] })).targets.items).toEqual(['p-1', 'p-2']);
    expect(form({ sku: 'usb-c-cable', 'line_items[0][sku]': 'gift-card-500' }).targets.items).toEqual(['usb-c-cable', 'gift-card-500']);
    expect(request('https://shop.test/api/order?sku=gift-card-500', 'POST', '{}').targets.items).toEqual(['gift-card-500']);
    expect(request('https://drive.test/api/files/contracts.pdf', 'DELETE').targets.items).toEqual(['contracts.pdf']);
    expect(request('https://drive.test/api/files/contracts.pdf/delete?file=old-draft.txt', 'POST', '{}').targets.items).toEqual(['old-draft.txt', 'contracts.pdf']);
  });

  it('a body it could not read (cut, or neither JSON nor form data) names an item nothing matches', () => {
    expect(request('https://shop.test/api/order?sku=usb-c-cable', 'POST', 'sku usb-c-cable').targets.items).toEqual(['usb-c-cable', UNREADABLE_ITEM]);
    const cut = classify({ tool: 'browser.request', args: { url: 'https://shop.test/api/order?sku=usb-c-cable', method: 'POST', kind: 'fetch', body: '{"sku":"usb-c-cab', bodyBytes: 20_000 } });
    expect(cut.targets.items).toContain(UNREADABLE_ITEM);
  });

  it('does not read address-like keys of a form as items', () => {
    expect(form({ sku: 'usb-c-cable', source: 'tok_visa', destination: '12 Rue Lafayette' }).targets.items).toEqual(['usb-c-cable']);
  });

  it('reads item keys of tool calls, never their local paths', () => {
    expect(classify({ tool: 'delete_file', args: { path: '/tmp/x' } }).targets).toMatchObject({ paths: ['/tmp/x'], items: [] });
    expect(classify({ tool: 'purchase', args: { item: 'usb-c-cable' } }).targets.items).toEqual(['usb-c-cable']);
  });
});
