/** The device sizes a preview is drawn at, and the frame's box for one inside the pane. */
import type { Device } from '../playground/layout';

/** The viewport each device size draws the preview at (Full: the pane's own size). */
export const DEVICE_SIZES: Record<Device, { label: string; width?: number; height?: number }> = {
  full: { label: 'Full' },
  phone: { label: 'Phone 390×844', width: 390, height: 844 },
  tablet: { label: 'Tablet 768×1024', width: 768, height: 1024 },
};

/**
 * The frame's box at a device size: the device's viewport, scaled down to fit the stage and centred
 * in it (never scaled up). Full fills the stage.
 */
export function deviceBox(device: Device, stage: { width: number; height: number }): { width: number; height: number; scale: number; left: number; top: number } | undefined {
  const { width, height } = DEVICE_SIZES[device];
  if (!width || !height) return undefined;
  const scale = Math.min(1, stage.width / width, stage.height / height);
  return { width, height, scale, left: Math.max(0, (stage.width - width * scale) / 2), top: Math.max(0, (stage.height - height * scale) / 2) };
}

