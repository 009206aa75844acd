// Media attachments (images): posts of their own, referred to by products, variations and categories. A write
// names an existing image by id or a new one by src; renders show src at the requested registered size.
import { type Body, int, invalid, str } from "../rest/body-fields.ts"
import { wcError } from "../rest/errors.ts"
import type { Ids } from "../ids.ts"
import { type Json, type RenderContext, dateFields } from "../rest/render.ts"

export interface ImageRecord {
  readonly id: number
  created: number
  modified: number
  src: string
  name: string
  alt: string
}

/** WordPress's and WooCommerce's registered image sizes; any other size falls back to full. */
const SIZES: Readonly<Record<string, string>> = {
  thumbnail: "150x150",
  medium: "300x300",
  medium_large: "768x768",
  large: "1024x1024",
  woocommerce_thumbnail: "300x300",
  woocommerce_single: "600x600",
  woocommerce_gallery_thumbnail: "100x100",
}

export interface ImageInput {
  id?: number
  src?: string
  name?: string
  alt?: string
}

export const imageInput = (b: Body, name: string): ImageInput => ({
  id: int(b, "id", `${name}[id]`),
  src: str(b, "src", `${name}[src]`),
  name: str(b, "name", `${name}[name]`),
  alt: str(b, "alt", `${name}[alt]`),
})

export class Media {
  readonly byId = new Map<number, ImageRecord>()

  constructor(
    private readonly ids: Ids,
    private readonly now: () => number,
  ) {}

  /** An existing image (name and alt updated when given) or a new one from src, as WooCommerce's set_images does. */
  resolve(input: ImageInput): ImageRecord {
    if (input.id !== undefined && input.id > 0) {
      const image = this.byId.get(input.id)
      if (image === undefined) throw wcError(400, "woocommerce_product_invalid_image_id", `#${input.id} is an invalid image ID.`)
      if (input.name !== undefined) image.name = input.name
      if (input.alt !== undefined) image.alt = input.alt
      return image
    }
    if (input.src === undefined || !/^https?:\/\/\S+$/i.test(input.src)) throw invalid("images[src]", "uri")
    const now = this.now()
    const file = input.src.split("?")[0]!.split("/").pop() ?? "image"
    const image: ImageRecord = { id: this.ids.take("post"), created: now, modified: now, src: input.src, name: input.name ?? file.replace(/\.[a-z0-9]+$/i, ""), alt: input.alt ?? "" }
    this.byId.set(image.id, image)
    return image
  }
}

/** `src` with the size suffix WordPress gives resized copies (photo.jpg → photo-300x300.jpg). */
const sized = (src: string, size: string): string => {
  const dims = SIZES[size]
  return dims === undefined ? src : src.replace(/(\.[a-z0-9]+)(\?.*)?$/i, `-${dims}$1$2`)
}

export const imageJson = (r: RenderContext, image: ImageRecord, size: string): Json => ({
  id: image.id,
  ...dateFields(r, "date_created", image.created),
  ...dateFields(r, "date_modified", image.modified),
  src: sized(image.src, size),
  name: image.name,
  alt: image.alt,
})
