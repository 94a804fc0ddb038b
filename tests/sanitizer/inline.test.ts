import { describe, expect, it } from 'vitest';
import { inlineMayHide, visuallyHiddenLabel, type InlineStyle } from '../../src/sanitizer/visibility';

/**
 * The cheap pre-check of inline text inside a visible block (src/sanitizer/dom/hidden.ts unreadableInline):
 * what it lets through to the full check (boxes, ancestors) and what it spares, from computed styles alone.
 */
const plain: InlineStyle = { display: 'inline', position: 'static', overflow: 'visible', opacity: '1', filter: 'none', clipPath: 'none', clip: 'auto', transform: 'none', maskImage: 'none', mixBlendMode: 'normal', visibility: 'visible' };
const block = { color: 'rgb(17, 17, 17)', background: 'rgb(255, 255, 255)' };
const text = (fontSize: string, color = block.color) => ({ fontSize, color });

describe('inline text the full check reads', () => {
  it.each<[string, Parameters<typeof inlineMayHide>[0], InlineStyle[]]>([
    ['a 1 px font', text('1px'), [plain]],
    ['font-size 0', text('0px'), [plain]],
    ['white on white', text('16px', 'rgb(255, 255, 255)'), [plain]],
    ['near-white', text('16px', 'rgb(248, 248, 248)'), [plain]],
    ['black at alpha 0.03', text('16px', 'rgba(0, 0, 0, 0.03)'), [plain]],
    ['a colour the rules cannot read', text('16px', 'oklch(1 0 0)'), [plain]],
    ['opacity on an outer span', text('16px'), [plain, { ...plain, opacity: '0.02' }]],
    ['an inline-block that hides its overflow', text('16px'), [{ ...plain, display: 'inline-block', overflow: 'hidden' }]],
    ['a clip rect', text('16px'), [{ ...plain, position: 'absolute', clip: 'rect(0px, 0px, 0px, 0px)' }]],
    ['a clip-path', text('16px'), [{ ...plain, clipPath: 'inset(50%)' }]],
    ['a transform', text('16px'), [{ ...plain, transform: 'matrix(0.01, 0, 0, 0.01, 0, 0)' }]],
    ['a transparent text fill', { ...text('16px'), webkitTextFillColor: 'rgba(0, 0, 0, 0)' }, [plain]],
  ])('%s', (_, style, chain) => {
    expect(inlineMayHide(style, chain, block)).toBe(true);
  });
});

describe('inline text spared the full check (ordinary pages cost one style read per piece of text)', () => {
  it.each<[string, Parameters<typeof inlineMayHide>[0], InlineStyle[]]>([
    ['bold text in the block colour', text('16px'), [plain, plain]],
    ['a blue link', text('16px', 'rgb(0, 0, 238)'), [plain]],
    ['grey small print people read (11 px #666)', text('11px', 'rgb(102, 102, 102)'), [plain]],
    ['a red warning', text('16px', 'rgb(200, 0, 0)'), [plain]],
  ])('%s', (_, style, chain) => {
    expect(inlineMayHide(style, chain, block)).toBe(false);
  });
});

describe('the visually-hidden screen-reader pattern', () => {
  it('is an absolutely positioned box of at most 1×1 px that hides its overflow', () => {
    expect(visuallyHiddenLabel({ position: 'absolute', overflow: 'hidden' }, { width: 1, height: 1 })).toBe(true);
  });
  it.each([
    ['a clipped box of its full size', { position: 'absolute', overflow: 'visible' }, { width: 300, height: 18 }],
    ['an inline-block window of 1×1 px (not positioned)', { position: 'static', overflow: 'hidden' }, { width: 1, height: 1 }],
    ['an absolutely positioned box people see', { position: 'absolute', overflow: 'hidden' }, { width: 120, height: 20 }],
  ] as const)('%s is not it', (_, style, box) => {
    expect(visuallyHiddenLabel(style, box)).toBe(false);
  });
});
