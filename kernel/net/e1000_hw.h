/*
 * Intel 8254x (e1000) registers and descriptors: the subset the driver
 * uses, from Intel's "PCI/PCI-X Family of Gigabit Ethernet Controllers
 * Software Developer's Manual" (section 13 for registers, 3.2 and 3.3
 * for the receive and transmit descriptors). Offsets are in bytes from
 * BAR 0.
 */
#ifndef _NET_E1000_HW_H
#define _NET_E1000_HW_H

#include <types.h>

#define E1000_VENDOR_INTEL	0x8086
#define E1000_DEV_82540EM	0x100e	/* what QEMU's -device e1000 is */

#define E1000_CTRL	0x0000	/* device control */
#define E1000_STATUS	0x0008	/* device status */
#define E1000_EERD	0x0014	/* EEPROM read */
#define E1000_ICR	0x00c0	/* interrupt cause read (reading clears it) */
#define E1000_ICS	0x00c8	/* interrupt cause set */
#define E1000_IMS	0x00d0	/* interrupt mask set (enables) */
#define E1000_IMC	0x00d8	/* interrupt mask clear (disables) */
#define E1000_RCTL	0x0100	/* receive control */
#define E1000_TCTL	0x0400	/* transmit control */
#define E1000_TIPG	0x0410	/* transmit inter-packet gap */
#define E1000_RDBAL	0x2800	/* receive ring base, low and high */
#define E1000_RDBAH	0x2804
#define E1000_RDLEN	0x2808	/* receive ring length in bytes (multiple of 128) */
#define E1000_RDH	0x2810	/* receive head: the device's next descriptor */
#define E1000_RDT	0x2818	/* receive tail: the device stops before it */
#define E1000_RDTR	0x2820	/* receive delay timer */
#define E1000_TDBAL	0x3800
#define E1000_TDBAH	0x3804
#define E1000_TDLEN	0x3808
#define E1000_TDH	0x3810
#define E1000_TDT	0x3818	/* transmit tail: software's next descriptor */
#define E1000_MPC	0x4010	/* missed packets: no descriptor free */
#define E1000_MTA	0x5200	/* multicast table, 128 words */
#define E1000_RAL	0x5400	/* receive address 0, low and high */
#define E1000_RAH	0x5404

#define E1000_CTRL_ASDE		(1u << 5)	/* auto speed detection */
#define E1000_CTRL_SLU		(1u << 6)	/* set link up */
#define E1000_CTRL_RST		(1u << 26)	/* software reset (self-clearing) */

#define E1000_STATUS_FD		(1u << 0)	/* full duplex */
#define E1000_STATUS_LU		(1u << 1)	/* link up */
#define E1000_STATUS_SPEED_SHIFT 6		/* 00: 10, 01: 100, 1x: 1000 Mb/s */

#define E1000_EERD_START	(1u << 0)
#define E1000_EERD_DONE		(1u << 4)
#define E1000_EERD_ADDR_SHIFT	8
#define E1000_EERD_DATA_SHIFT	16

/* Interrupt causes (ICR, ICS, IMS, IMC). */
#define E1000_ICR_TXDW		(1u << 0)	/* a descriptor with RS was written back */
#define E1000_ICR_TXQE		(1u << 1)	/* transmit queue empty */
#define E1000_ICR_LSC		(1u << 2)	/* link status change */
#define E1000_ICR_RXSEQ		(1u << 3)	/* receive sequence error */
#define E1000_ICR_RXDMT0	(1u << 4)	/* receive descriptors below the threshold */
#define E1000_ICR_RXO		(1u << 6)	/* receiver overrun */
#define E1000_ICR_RXT0		(1u << 7)	/* receiver timer: packets arrived */

#define E1000_RCTL_EN		(1u << 1)
#define E1000_RCTL_LPE		(1u << 5)	/* long packets: over 1522 bytes */
#define E1000_RCTL_BAM		(1u << 15)	/* accept broadcast */
#define E1000_RCTL_BSIZE_2048	(0u << 16)	/* with BSEX clear */
#define E1000_RCTL_SECRC	(1u << 26)	/* strip the Ethernet CRC */

#define E1000_TCTL_EN		(1u << 1)
#define E1000_TCTL_PSP		(1u << 3)	/* pad short packets to 64 bytes */
#define E1000_TCTL_CT_SHIFT	4		/* collision threshold */
#define E1000_TCTL_COLD_SHIFT	12		/* collision distance */

/* Receive descriptor (legacy), section 3.2.3. */
struct e1000_rx_desc {
	u64 addr;			/* buffer, physical */
	u16 length;			/* bytes written to the buffer */
	u16 csum;
	u8 status;
	u8 errors;
	u16 special;
} __packed;

#define E1000_RXD_STAT_DD	(1u << 0)	/* descriptor done */
#define E1000_RXD_STAT_EOP	(1u << 1)	/* end of packet */
/* Frame errors: CRC, symbol, sequence, carrier extension, RX data. */
#define E1000_RXD_ERR_FRAME	(0x01 | 0x02 | 0x04 | 0x10 | 0x80)

/* Transmit descriptor (legacy), section 3.3.3. */
struct e1000_tx_desc {
	u64 addr;
	u16 length;
	u8 cso;
	u8 cmd;
	u8 status;
	u8 css;
	u16 special;
} __packed;

#define E1000_TXD_CMD_EOP	(1u << 0)	/* end of packet */
#define E1000_TXD_CMD_IFCS	(1u << 1)	/* insert the CRC */
#define E1000_TXD_CMD_RS	(1u << 3)	/* report status: write DD back */
#define E1000_TXD_STAT_DD	(1u << 0)

#endif
