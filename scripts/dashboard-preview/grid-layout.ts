import type { GridPos } from './dashboard.js';

/** Grafana's grid: 24 columns, rows 30 px high, 8 px between cells (react-grid-layout's margin). */
export const GRID_COLUMNS = 24;
export const GRID_CELL_HEIGHT = 30;
export const GRID_MARGIN = 8;

export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/**
 * Where Grafana draws a panel of `gridPos` on a grid `width` pixels wide, in pixels from the grid's top left corner.
 *
 * @example gridBox({ x: 8, y: 1, w: 8, h: 8 }, 1576) // { left: 528, top: 38, width: 520, height: 296 }
 */
export function gridBox(position: GridPos, width: number): Box {
  const column = (width - GRID_MARGIN * (GRID_COLUMNS - 1)) / GRID_COLUMNS;
  return {
    left: position.x * (column + GRID_MARGIN),
    top: position.y * (GRID_CELL_HEIGHT + GRID_MARGIN),
    width: position.w * column + (position.w - 1) * GRID_MARGIN,
    height: position.h * GRID_CELL_HEIGHT + (position.h - 1) * GRID_MARGIN,
  };
}

/** The grid's height in pixels: down to the lowest panel's bottom edge. */
export function gridHeight(positions: readonly GridPos[]): number {
  const rows = Math.max(0, ...positions.map((position) => position.y + position.h));
  return rows === 0 ? 0 : rows * GRID_CELL_HEIGHT + (rows - 1) * GRID_MARGIN;
}
