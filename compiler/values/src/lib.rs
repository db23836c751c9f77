//! Values as typed flat buffers plus shape; text and binary formats; tolerance comparison; random data.
