package io.rkllm.server.pipeline.vision;

import com.drew.imaging.ImageMetadataReader;
import com.drew.metadata.Metadata;
import com.drew.metadata.exif.ExifIFD0Directory;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;

/**
 * The EXIF orientation of a photo (tag 0x0112, values 1-8): phones store the sensor's pixels as they came and
 * write in this tag how to turn them for display, so a portrait photo is often a landscape image with
 * orientation 6. The model must see the photo as its owner does.
 */
final class Orientation {
    static final int NORMAL = 1;

    private Orientation() {
    }

    /** The orientation the picture's EXIF data gives, or {@link #NORMAL} when it has none (or unreadable data). */
    static int of(byte[] picture) {
        try {
            Metadata metadata = ImageMetadataReader.readMetadata(new ByteArrayInputStream(picture), picture.length);
            for (ExifIFD0Directory exif : metadata.getDirectoriesOfType(ExifIFD0Directory.class)) {
                Integer value = exif.getInteger(ExifIFD0Directory.TAG_ORIENTATION);
                if (value != null && value >= 1 && value <= 8) {
                    return value;
                }
            }
        } catch (Exception | StackOverflowError e) {
            // broken metadata does not make a broken picture: show it as stored
        }
        return NORMAL;
    }

    /** Orientations 5 to 8 turn the picture by a quarter: width and height swap. */
    static boolean swapsSides(int orientation) {
        return orientation >= 5;
    }

    /** {@code image} (TYPE_INT_RGB) turned and mirrored as {@code orientation} says; the same image for 1. */
    static BufferedImage apply(BufferedImage image, int orientation) {
        if (orientation == NORMAL) {
            return image;
        }
        int w = image.getWidth();
        int h = image.getHeight();
        int[] src = image.getRGB(0, 0, w, h, null, 0, w);
        boolean swap = swapsSides(orientation);
        int dw = swap ? h : w;
        int dh = swap ? w : h;
        int[] dst = new int[src.length];
        for (int sy = 0; sy < h; sy++) {
            for (int sx = 0; sx < w; sx++) {
                int dx;
                int dy;
                switch (orientation) {
                    case 2 -> { dx = w - 1 - sx; dy = sy; }          // mirrored
                    case 3 -> { dx = w - 1 - sx; dy = h - 1 - sy; }  // upside down
                    case 4 -> { dx = sx; dy = h - 1 - sy; }          // mirrored upside down
                    case 5 -> { dx = sy; dy = sx; }                  // mirrored, turned
                    case 6 -> { dx = h - 1 - sy; dy = sx; }          // turn a quarter clockwise
                    case 7 -> { dx = h - 1 - sy; dy = w - 1 - sx; }  // mirrored, turned the other way
                    case 8 -> { dx = sy; dy = w - 1 - sx; }          // turn a quarter anticlockwise
                    default -> { dx = sx; dy = sy; }
                }
                dst[dy * dw + dx] = src[sy * w + sx];
            }
        }
        BufferedImage out = new BufferedImage(dw, dh, BufferedImage.TYPE_INT_RGB);
        out.setRGB(0, 0, dw, dh, dst, 0, dw);
        return out;
    }
}
