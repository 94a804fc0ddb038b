export { ACTIONS, ACTION_IDS, GENERAL_VERBS, OWNED_THINGS, OWNERSHIP_VERBS, SECURITY_ACTIONS, isActionId, type ActionId, type ActionSpec } from './vocabulary';
export { APPS, type AppSpec, type PageSpec, type RouteSpec } from './apps';
export { appOfHost, appOfUrl, canonicalObject, describeObject, describeReading, flatFields, objectCovered, objectOfPage, readGenericWrite, readWebAction, type ActionReading, type WebRequestView } from './read';
export { allowedWriteRoutes, type SiteWriteRoutes, type WriteRoute } from './routes';
export { patternRegex } from './pattern';
