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

it('compares names, never top-level labels: a sender is not a look-alike because its suffix is your name', () => {
  // Mail to me@example.org from anyone under the .example top-level label.
  for (const sender of ['northwind-news.example', 'colleague.example', 'billing.cloudhost.example'])
    expect(isLookAlike(sender, 'example.org')).toBe(false);
  // Your shop is shop.com; mail.shop is someone else's name under the .shop label.
  expect(isLookAlike('mail.shop', 'shop.com')).toBe(false);
  expect(isLookAlike('deals.mail.shop', 'shop.com')).toBe(false);
  // Names are still compared, whatever the suffix.
  expect(isLookAlike('example.com', 'example.org')).toBe(true);
  expect(isLookAlike('examp1e.net', 'example.org')).toBe(true);
  expect(isLookAlike('shop-support.com', 'shop.com')).toBe(true);
  expect(isLookAlike('shop.mail.example', 'shop.com')).toBe(true); // your name as a subdomain of another
  // A registry's second level is a suffix too: the name of northwind.co.uk is northwind.
  expect(isLookAlike('northwlnd.co.uk', 'northwind.co.uk')).toBe(true);
  expect(isLookAlike('mail.co.uk', 'northwind.co.uk')).toBe(false);
});
