export { RouteBoard, type RoutingStrategy, type CircuitBreaker } from './route-board.js';
