import QRCode from "qrcode";

/**
 * A PNG QR code of `text` as a `data:image/png;base64,…` URI (error correction M, 2-module
 * quiet zone, 256 px wide), ready for an `<img src>`.
 */
export async function qrDataUri(text: string): Promise<string> {
  return QRCode.toDataURL(text, { type: "image/png", errorCorrectionLevel: "M", margin: 2, width: 256 });
}
