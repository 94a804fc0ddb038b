import type { RiskClass } from '../risk';

/**
 * Canonical capabilities and their risk class. Every capability the classifier emits is in this
 * table, so a policy can name a capability and know which class it stands for.
 */
export const CAPABILITY_CLASSES: Readonly<Record<string, RiskClass>> = {
  'web.read': 'READ',
  'web.write': 'EXTERNAL_WRITE',
  'web.socket': 'EXTERNAL_WRITE',
  'file.read': 'READ',
  'file.write': 'LOCAL_WRITE',
  'file.delete': 'DELETE',
  'file.upload': 'EXTERNAL_WRITE',
  'file.download': 'LOCAL_WRITE',
  'email.read': 'READ',
  'email.write': 'EXTERNAL_WRITE',
  'email.send': 'COMMUNICATION',
  'email.delete': 'DELETE',
  'message.read': 'READ',
  'message.write': 'EXTERNAL_WRITE',
  'message.send': 'COMMUNICATION',
  'message.delete': 'DELETE',
  'doc.read': 'READ',
  'doc.write': 'EXTERNAL_WRITE',
  'doc.delete': 'DELETE',
  'doc.share': 'PERMISSION_CHANGE',
  'calendar.read': 'READ',
  'calendar.write': 'EXTERNAL_WRITE',
  'calendar.delete': 'DELETE',
  'payment.send': 'FINANCIAL',
  'permission.change': 'PERMISSION_CHANGE',
  'data.read': 'READ',
  'data.write': 'EXTERNAL_WRITE',
  'data.delete': 'DELETE',
  'code.execute': 'EXECUTION',
  'shell.read': 'READ',
  'shell.local_write': 'LOCAL_WRITE',
  'shell.external_write': 'EXTERNAL_WRITE',
  'shell.communication': 'COMMUNICATION',
  'shell.delete': 'DELETE',
  'shell.permission_change': 'PERMISSION_CHANGE',
  'shell.execution': 'EXECUTION',
  unknown: 'UNKNOWN',
};

/** The capability a class falls back to when nothing more specific is known. */
export const CLASS_CAPABILITY: Readonly<Record<RiskClass, string>> = {
  READ: 'data.read',
  LOCAL_WRITE: 'file.write',
  EXTERNAL_WRITE: 'data.write',
  COMMUNICATION: 'message.send',
  DELETE: 'data.delete',
  PERMISSION_CHANGE: 'permission.change',
  FINANCIAL: 'payment.send',
  EXECUTION: 'code.execute',
  UNKNOWN: 'unknown',
};

/**
 * Provider-specific names → canonical capability, for the compiler (a model may say `gmail.send`;
 * the policy says `email.send`). Mapping never widens: each alias names exactly one capability.
 */
export const CANONICAL_CAPABILITIES: Readonly<Record<string, string>> = {
  'gmail.send': 'email.send',
  'gmail.read': 'email.read',
  'gmail.delete': 'email.delete',
  'gmail.draft': 'email.write',
  'outlook.send': 'email.send',
  'outlook.read': 'email.read',
  'outlook.delete': 'email.delete',
  'mail.send': 'email.send',
  'mail.read': 'email.read',
  'smtp.send': 'email.send',
  'email.reply': 'email.send',
  'email.forward': 'email.send',
  'slack.send': 'message.send',
  'slack.post': 'message.send',
  'slack.read': 'message.read',
  'teams.send': 'message.send',
  'discord.send': 'message.send',
  'sms.send': 'message.send',
  'chat.send': 'message.send',
  'chat.read': 'message.read',
  'drive.share': 'doc.share',
  'gdrive.share': 'doc.share',
  'gdocs.share': 'doc.share',
  'docs.share': 'doc.share',
  'dropbox.share': 'doc.share',
  'onedrive.share': 'doc.share',
  'file.share': 'doc.share',
  'drive.read': 'doc.read',
  'gdocs.read': 'doc.read',
  'drive.delete': 'doc.delete',
  'gdocs.write': 'doc.write',
  'gcal.read': 'calendar.read',
  'gcal.write': 'calendar.write',
  'calendar.create': 'calendar.write',
  'stripe.charge': 'payment.send',
  'paypal.send': 'payment.send',
  'bank.transfer': 'payment.send',
  'payment.pay': 'payment.send',
  'payment.transfer': 'payment.send',
  'shop.purchase': 'payment.send',
  'shop.checkout': 'payment.send',
  'fs.read': 'file.read',
  'fs.write': 'file.write',
  'fs.delete': 'file.delete',
  'http.get': 'web.read',
  'http.post': 'web.write',
  'browser.navigate': 'web.read',
  'browser.upload': 'file.upload',
  'browser.download': 'file.download',
  'js.eval': 'code.execute',
  'javascript.execute': 'code.execute',
  'permissions.update': 'permission.change',
};

/**
 * What a browser can observe of a service capability. A page's form or request shows a message being
 * sent, a share or a deletion, never which service's API does it: the web classifier emits these.
 * The browser-side capability is broader (a password form is also `permission.change`) but of the same
 * class: listing it never allows more than the class listing the rules compiler gives for the same
 * words, and the class's constraints (recipients, sites, items, budget) still bind every call.
 */
export const BROWSER_EQUIVALENTS: Readonly<Record<string, string>> = {
  'email.send': 'message.send',
  'email.write': 'web.write',
  'email.delete': 'data.delete',
  'message.write': 'web.write',
  'message.delete': 'data.delete',
  'doc.write': 'web.write',
  'doc.delete': 'data.delete',
  'doc.share': 'permission.change',
  'calendar.write': 'web.write',
  'calendar.delete': 'data.delete',
  'data.write': 'web.write',
};

/** The canonical name of a capability (itself when canonical), or undefined when unknown. */
export function canonicalCapability(capability: string): string | undefined {
  const name = capability.trim().toLowerCase();
  if (Object.hasOwn(CAPABILITY_CLASSES, name)) return name;
  return Object.hasOwn(CANONICAL_CAPABILITIES, name) ? CANONICAL_CAPABILITIES[name] : undefined;
}

/** The risk class of a known capability (canonical or provider alias); undefined otherwise. */
export function capabilityClass(capability: string): RiskClass | undefined {
  const canonical = canonicalCapability(capability);
  return canonical === undefined ? undefined : CAPABILITY_CLASSES[canonical];
}

/** The most specific capability for an object noun and a class, if the table knows one. */
export function capabilityFor(object: string | undefined, riskClass: RiskClass): string {
  if (object !== undefined) {
    const action = CLASS_ACTION[riskClass];
    const candidate = `${object}.${action}`;
    if (CAPABILITY_CLASSES[candidate] === riskClass) return candidate;
  }
  return CLASS_CAPABILITY[riskClass];
}

const CLASS_ACTION: Readonly<Record<RiskClass, string>> = {
  READ: 'read',
  LOCAL_WRITE: 'write',
  EXTERNAL_WRITE: 'write',
  COMMUNICATION: 'send',
  DELETE: 'delete',
  PERMISSION_CHANGE: 'share',
  FINANCIAL: 'send',
  EXECUTION: 'execute',
  UNKNOWN: 'unknown',
};

/** `shell.read`, `shell.local_write`, … — one capability per class for shell commands. */
export function shellCapability(riskClass: RiskClass): string {
  return riskClass === 'UNKNOWN' ? 'unknown' : `shell.${riskClass.toLowerCase()}`;
}
