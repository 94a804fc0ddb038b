import { describe, expect, it } from 'vitest';
import { productOfHost, productsNamed } from '../../src/core/products';

describe('sites named by their product (products.ts)', () => {
  it('a host is the product by its registrable domain, or that domain\'s loopback .test twin', () => {
    expect(productOfHost('www.linkedin.com', ['linkedin'])).toBe('linkedin');
    expect(productOfHost('linkedin.test', ['linkedin'])).toBe('linkedin');
    expect(productOfHost('mail.google.test', ['gmail'])).toBe('gmail');
    expect(productOfHost('acme.atlassian.test', ['jira'])).toBe('jira');
  });
  it('a look-alike, another product or one the words do not name is not it', () => {
    expect(productOfHost('linkedin-verify.test', ['linkedin'])).toBeNull();
    expect(productOfHost('linkedin.evil.test', ['linkedin'])).toBeNull();
    expect(productOfHost('my-linkedin.com', ['linkedin'])).toBeNull();
    expect(productOfHost('linkedin.test', ['gitlab'])).toBeNull();
  });
  it('reads product names as words of their own, never inside an address', () => {
    expect(productsNamed('post on my linkedin that i finished')).toEqual(['linkedin']);
    expect(productsNamed('post on linkedin.test')).toEqual([]);
  });
});
