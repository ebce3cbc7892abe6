import { expect, it } from '@jest/globals';
import { isLookAlike } from '../../shared/sources/look-alike.ts';

it('flags a domain made to pass for your own, and not your own, its subdomains or strangers', () => {
  for (const sender of [
    'northwlnd.example',
    'northwind-support.example',
    'northwind.example.co',
    'nortwind.example',
  ])
    expect(isLookAlike(sender, 'northwind.example')).toBe(true);
  for (const sender of [
    'northwind.example',
    'mail.northwind.example',
    'digest.example',
    'southwind.example',
    'brightpath.example',
  ])
    expect(isLookAlike(sender, 'northwind.example')).toBe(false);
  expect(isLookAlike('vendor.example', 'lists.vendor.example')).toBe(false); // own is its subdomain
  expect(isLookAlike('acme-billing.example', 'acme.example')).toBe(true);
  expect(isLookAlike('acne.example', 'acme.example')).toBe(false); // short names: no edits
  expect(isLookAlike('mail.example', 'gmail.com')).toBe(false);
});
