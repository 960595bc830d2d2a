import {quantize, type QuantizedVector} from './vector-index.js'

/**
 * A vector as a database row holds it: its int8 components, then the float32 scale that makes
 * them a unit vector (little-endian), a quarter of the float32 vector's size.
 */
export function vectorBytes(vector: Float32Array): Buffer {
  const {values, scale} = quantize(vector)
  const bytes = Buffer.alloc(values.length + 4)
  bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.length))
  bytes.writeFloatLE(scale, values.length)
  return bytes
}

/** The vector {@link vectorBytes} wrote, as kept; undefined for bytes too short to be one. */
export function quantizedOf(bytes: Buffer): QuantizedVector | undefined {
  if (bytes.length < 5) return undefined
  const length = bytes.length - 4
  const values = new Int8Array(length)
  values.set(new Int8Array(bytes.buffer, bytes.byteOffset, length))
  return {values, scale: bytes.readFloatLE(length)}
}
