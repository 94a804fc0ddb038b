/**
 * Generates public/icon/{16,32,48,128}.png: a blue shield with a white picket fence, drawn with 4×4
 * supersampling and written as RGBA PNGs with node:zlib. Run: `npx tsx src/ui/makeIcons.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SHIELD: [number, number, number] = [11, 92, 173];
const FENCE: [number, number, number] = [255, 255, 255];

/** Shield in unit coordinates: straight sides, rounded towards a point at the bottom. */
function inShield(x: number, y: number): boolean {
  if (y < 0.06 || y > 0.96) return false;
  const half = y < 0.5 ? 0.4 : 0.4 * Math.sqrt(Math.max(0, 1 - ((y - 0.5) / 0.46) ** 2));
  return Math.abs(x - 0.5) <= half;
}

/** Three pickets with pointed tops and two rails. */
function inFence(x: number, y: number): boolean {
  for (const cx of [0.33, 0.5, 0.67]) {
    const dx = Math.abs(x - cx);
    if (dx <= 0.055 && y >= 0.3 && y <= 0.74) return true;
    if (y >= 0.22 && y < 0.3 && dx <= 0.055 * ((y - 0.22) / 0.08)) return true;
  }
  const rail = (top: number) => y >= top && y <= top + 0.06 && x >= 0.25 && x <= 0.75;
  return rail(0.38) || rail(0.58);
}

function pixels(size: number): Buffer {
  const out = Buffer.alloc(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let shield = 0;
      let fence = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (px + (sx + 0.5) / n) / size;
          const y = (py + (sy + 0.5) / n) / size;
          if (inShield(x, y)) {
            if (inFence(x, y)) fence++;
            else shield++;
          }
        }
      }
      const covered = shield + fence;
      const i = (py * size + px) * 4;
      if (covered === 0) continue;
      for (let c = 0; c < 3; c++) out[i + c] = Math.round(((SHIELD[c] ?? 0) * shield + (FENCE[c] ?? 0) * fence) / covered);
      out[i + 3] = Math.round((255 * covered) / (n * n));
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, k) => {
  let c = k;
  for (let j = 0; j < 8; j++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function png(size: number): Buffer {
  const rgba = pixels(size);
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(6, 9); // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

mkdirSync('public/icon', { recursive: true });
for (const size of [16, 32, 48, 128]) writeFileSync(`public/icon/${size}.png`, png(size));
