export { ACTIONS, ACTION_IDS, GENERAL_VERBS, SECURITY_ACTIONS, isActionId, type ActionId, type ActionSpec } from './vocabulary';
export { APPS, type AppSpec, type PageSpec, type RouteSpec } from './apps';
export { appOfHost, canonicalObject, describeObject, describeReading, flatFields, objectCovered, objectOfPage, readWebAction, type ActionReading, type WebRequestView } from './read';
export { allowedWriteRoutes, patternRegex, type SiteWriteRoutes, type WriteRoute } from './routes';
