export { RouteBoard, type RoutingStrategy, type CircuitBreaker } from './route-board.js';
export { RoutePlans, DEFAULT_OUTPUT_BUDGET, type ModelPlan, type RoutePlan, type UpstreamRoute } from './route-plans.js';
