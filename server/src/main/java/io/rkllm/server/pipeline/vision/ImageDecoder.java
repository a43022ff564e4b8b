package io.rkllm.server.pipeline.vision;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.color.ColorSpace;
import java.awt.image.BufferedImage;
import java.awt.image.ColorModel;
import java.awt.image.IndexColorModel;
import java.awt.image.Raster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.Locale;
import javax.imageio.ImageIO;
import javax.imageio.ImageReadParam;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;

/**
 * Decodes a picture (JPEG, PNG, WebP, GIF: its first frame) into RGB as its owner sees it (EXIF orientation
 * applied, transparency over white). The size in the header is checked before any pixel is decoded, so a small
 * file that claims a huge picture (a decompression bomb) costs nothing; a large photo is decoded subsampled, at no
 * more than twice the size the encoder needs, so a 50-megapixel photo costs a few megabytes of heap.
 */
public final class ImageDecoder {
    /**
     * Bounds on the pictures accepted.
     *
     * @param maxPixels most pixels a picture may have (width x height)
     * @param maxSide longest side a picture may have
     */
    public record Limits(long maxPixels, int maxSide) {
        public static final Limits DEFAULT = new Limits(100_000_000L, 30_000);
    }

    private final Limits limits;

    public ImageDecoder(Limits limits) {
        this.limits = limits;
    }

    /**
     * The picture in RGB, upright, at least as large as needed to fill {@code width x height} (or its own size
     * when smaller).
     *
     * @throws ImageException for a broken picture, one beyond the limits, or an unsupported format
     */
    public BufferedImage decode(byte[] picture, int width, int height) {
        ImageFormat format = ImageFormat.detect(picture).orElseThrow(() -> new ImageException(
                ImageException.UNSUPPORTED, "the image is " + ImageFormat.guess(picture)
                        + ": send JPEG, PNG, WebP or GIF"));
        ImageReader reader = reader(format);
        try (ImageInputStream in = ImageIO.createImageInputStream(new ByteArrayInputStream(picture))) {
            reader.setInput(in, true, true);
            int w;
            int h;
            try {
                w = reader.getWidth(0);
                h = reader.getHeight(0);
            } catch (IOException | RuntimeException e) {
                throw broken(format, e);
            }
            check(w, h);
            int orientation = format == ImageFormat.GIF ? Orientation.NORMAL : Orientation.of(picture);
            boolean swap = Orientation.swapsSides(orientation);
            ImageReadParam param = reader.getDefaultReadParam();
            int step = subsampling(swap ? h : w, swap ? w : h, width, height);
            if (step > 1) {
                param.setSourceSubsampling(step, step, 0, 0);
            }
            BufferedImage decoded;
            try {
                decoded = reader.read(0, param);
            } catch (IOException | RuntimeException e) {
                throw broken(format, e);
            }
            return Orientation.apply(toRgb(decoded), orientation);
        } catch (IOException e) {
            throw broken(format, e);
        } finally {
            reader.dispose();
        }
    }

    private void check(int w, int h) {
        if (w <= 0 || h <= 0) {
            throw new ImageException(ImageException.INVALID, "the image has no pixels (" + w + "x" + h + ")");
        }
        if (w > limits.maxSide() || h > limits.maxSide() || (long) w * h > limits.maxPixels()) {
            throw new ImageException(ImageException.TOO_LARGE, "the image is " + w + "x" + h + " pixels, more than"
                    + " the server accepts (" + megapixels(limits.maxPixels()) + " megapixels, " + limits.maxSide()
                    + " pixels a side: vision.max_megapixels); scale it down before sending it");
        }
    }

    private static String megapixels(long pixels) {
        return pixels % 1_000_000 == 0 ? Long.toString(pixels / 1_000_000)
                : String.format(Locale.ROOT, "%.1f", pixels / 1e6);
    }

    /**
     * Every how many pixels to read so that the picture, scaled to fit {@code width x height}, still comes
     * from at least twice the pixels it needs (a subsampled read skips pixels: aliasing below that).
     */
    static int subsampling(int w, int h, int width, int height) {
        double scale = Math.min((double) width / w, (double) height / h);
        return scale >= 0.5 ? 1 : (int) Math.floor(0.5 / scale);
    }

    private static ImageReader reader(ImageFormat format) {
        Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName(format.readerName);
        if (!readers.hasNext()) {
            // ImageIO registers plug-ins (the WebP reader) found on the class path when it first starts
            ImageIO.scanForPlugins();
            readers = ImageIO.getImageReadersByFormatName(format.readerName);
        }
        if (!readers.hasNext()) {
            throw new ImageException(ImageException.UNSUPPORTED, "this server has no " + format.readerName
                    + " reader; send JPEG or PNG");
        }
        return readers.next();
    }

    private static ImageException broken(ImageFormat format, Exception e) {
        String reason = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName()
                : e.getMessage();
        return new ImageException(ImageException.INVALID, "the " + format.readerName.toUpperCase(Locale.ROOT)
                + " image cannot be decoded: " + reason);
    }

    /**
     * The picture as TYPE_INT_RGB. Grey pictures are copied sample by sample: ImageIO gives them a linear grey
     * colour space, and drawing them into RGB would convert (and lighten) values that are meant as displayed.
     * Transparent pixels are laid over white, as a viewer shows them.
     */
    static BufferedImage toRgb(BufferedImage src) {
        if (src.getType() == BufferedImage.TYPE_INT_RGB) {
            return src;
        }
        int w = src.getWidth();
        int h = src.getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        ColorModel cm = src.getColorModel();
        if (cm.getColorSpace().getType() == ColorSpace.TYPE_GRAY && !(cm instanceof IndexColorModel)) {
            Raster raster = src.getRaster();
            int greyBits = cm.getComponentSize(0);
            int alphaBits = cm.hasAlpha() ? cm.getComponentSize(cm.getNumComponents() - 1) : 0;
            int[] row = new int[w];
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int g = to8(raster.getSample(x, y, 0), greyBits);
                    if (alphaBits > 0) {
                        int a = to8(raster.getSample(x, y, raster.getNumBands() - 1), alphaBits);
                        g = (g * a + 255 * (255 - a) + 127) / 255;
                    }
                    row[x] = g << 16 | g << 8 | g;
                }
                out.setRGB(0, y, w, 1, row, 0, w);
            }
            return out;
        }
        Graphics2D g = out.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, w, h);
            g.drawImage(src, 0, 0, null);
        } finally {
            g.dispose();
        }
        return out;
    }

    private static int to8(int sample, int bits) {
        if (bits == 8) {
            return sample;
        }
        return bits > 8 ? sample >>> (bits - 8) : sample * 255 / ((1 << bits) - 1);
    }
}
