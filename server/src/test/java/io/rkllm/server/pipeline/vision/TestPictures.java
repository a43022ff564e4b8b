package io.rkllm.server.pipeline.vision;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.CRC32;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/** Pictures made for tests with ImageIO (no binary files in the repository), and their broken variants. */
public final class TestPictures {
    /**
     * {@link #quadrants(int, int, int)} at 64 x 32 as lossless WebP: ImageIO writes no WebP, so this one was made
     * once with libwebp's {@code cwebp -lossless -exact} from the same pixels (78 bytes).
     */
    public static final String QUADRANTS_64X32_WEBP = "UklGRkYAAABXRUJQVlA4TDoAAAAvP8AHAB8gEEjyBxlyEjVtGzC5yp/vVNi2DdJ28P"
            + "+9PP+B77RLSiASIPGkJz1pIlMj+j8BxaCv49AX";

    public static final Color RED = new Color(255, 0, 0);
    public static final Color BLUE = new Color(0, 0, 255);
    public static final Color GREEN = new Color(0, 160, 0);
    public static final Color WHITE = new Color(250, 250, 250);

    private TestPictures() {
    }

    /** Four solid quarters: red top left, blue top right, green bottom left, near-white bottom right. */
    public static BufferedImage quadrants(int width, int height, int type) {
        BufferedImage image = new BufferedImage(width, height, type);
        Graphics2D g = image.createGraphics();
        g.setColor(RED);
        g.fillRect(0, 0, width / 2, height / 2);
        g.setColor(BLUE);
        g.fillRect(width / 2, 0, width - width / 2, height / 2);
        g.setColor(GREEN);
        g.fillRect(0, height / 2, width / 2, height - height / 2);
        g.setColor(WHITE);
        g.fillRect(width / 2, height / 2, width - width / 2, height - height / 2);
        g.dispose();
        return image;
    }

    /** A solid picture of one colour. */
    public static BufferedImage solid(int width, int height, Color color) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setColor(color);
        g.fillRect(0, 0, width, height);
        g.dispose();
        return image;
    }

    public static byte[] png(BufferedImage image) {
        return write(image, "png");
    }

    public static byte[] gif(BufferedImage image) {
        return write(image, "gif");
    }

    public static byte[] jpeg(BufferedImage image) {
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
            writer.setOutput(stream);
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(1.0f);
            writer.write(null, new IIOImage(image, null, null), param);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            writer.dispose();
        }
        return out.toByteArray();
    }

    public static byte[] webpQuadrants() {
        return Base64.getDecoder().decode(QUADRANTS_64X32_WEBP);
    }

    /**
     * The JPEG with an EXIF segment (APP1) saying {@code orientation}, right after its start marker: a little-endian
     * TIFF header and one IFD0 entry, tag 0x0112, type SHORT, as cameras write it.
     */
    public static byte[] withOrientation(byte[] jpeg, int orientation) {
        ByteBuffer tiff = ByteBuffer.allocate(26).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        tiff.put((byte) 'I').put((byte) 'I').putShort((short) 42).putInt(8);
        tiff.putShort((short) 1);
        tiff.putShort((short) 0x0112).putShort((short) 3).putInt(1).putShort((short) orientation).putShort((short) 0);
        tiff.putInt(0);
        byte[] exif = new byte[6 + tiff.capacity()];
        System.arraycopy("Exif\0\0".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), 0, exif, 0, 6);
        System.arraycopy(tiff.array(), 0, exif, 6, tiff.capacity());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(jpeg, 0, 2);
        out.write(0xFF);
        out.write(0xE1);
        int length = exif.length + 2;
        out.write(length >>> 8);
        out.write(length & 0xFF);
        out.write(exif, 0, exif.length);
        out.write(jpeg, 2, jpeg.length - 2);
        return out.toByteArray();
    }

    /**
     * A small valid PNG whose header claims {@code width x height} (a decompression bomb's signature: a few
     * hundred bytes that would decode into gigabytes).
     */
    public static byte[] pngClaiming(int width, int height) {
        byte[] png = png(solid(8, 8, RED));
        ByteBuffer b = ByteBuffer.wrap(png);
        // signature (8), IHDR length (4), "IHDR" (4), then width and height
        b.putInt(16, width);
        b.putInt(20, height);
        CRC32 crc = new CRC32();
        crc.update(png, 12, 17);
        b.putInt(29, (int) crc.getValue());
        return png;
    }

    private static byte[] write(BufferedImage image, String format) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, format, out)) {
                throw new IllegalStateException("no " + format + " writer");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
