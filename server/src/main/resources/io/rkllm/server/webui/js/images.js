// Pictures the user attaches or pastes, as data URLs (they go into the request and into IndexedDB). A large
// photo is scaled down first: the vision encoders take 448-896 pixels, and a phone's 12-megapixel JPEG would
// only make every later request of the chat heavier.

const MAX_SIDE = 1600;
const KEEP_BELOW_BYTES = 1_500_000;
export const ACCEPTED = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

export async function readPicture(file) {
  if (!ACCEPTED.includes(file.type)) {
    throw new Error(`${file.name || 'this file'} is not a PNG, JPEG, WebP or GIF picture`);
  }
  const original = await asDataUrl(file);
  if (file.size <= KEEP_BELOW_BYTES || file.type === 'image/gif') {
    const size = await dimensions(file).catch(() => null);
    if (!size || Math.max(size.width, size.height) <= MAX_SIDE) {
      return {name: file.name || 'picture', type: file.type, dataUrl: original};
    }
  }
  try {
    return {name: file.name || 'picture', type: 'image/jpeg', dataUrl: await scaled(file)};
  } catch {
    return {name: file.name || 'picture', type: file.type, dataUrl: original};
  }
}

function asDataUrl(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

async function dimensions(file) {
  const bitmap = await createImageBitmap(file);
  const size = {width: bitmap.width, height: bitmap.height};
  bitmap.close();
  return size;
}

async function scaled(file) {
  const bitmap = await createImageBitmap(file, {imageOrientation: 'from-image'});
  const factor = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(bitmap.width * factor);
  canvas.height = Math.round(bitmap.height * factor);
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return canvas.toDataURL('image/jpeg', 0.9);
}
