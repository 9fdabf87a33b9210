// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// AuthorizationBatch: submits several EIP-3009 authorizations of one token in a single transaction, FOR LOCAL
// CHAINS AND TESTS ONLY. Anyone may submit a signed `transferWithAuthorization`, so a payer (or anyone holding
// the signed authorizations) can do this on the real chain too; the API suite uses it to check that each
// authorization is credited from its own transfer, never from another one in the same transaction.
//
// Build: `npm run contracts:compile` writes lib/chain/contracts/authorization-batch.json and
// lib/chain/authorization-batch-abi.ts.

interface IEIP3009 {
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

contract AuthorizationBatch {
    struct Authorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        bytes signature;
    }

    event Submitted(address indexed token, uint256 count);

    /// Calls `token.transferWithAuthorization` once per authorization, in order; any failure reverts them all.
    function submit(address token, Authorization[] calldata authorizations) external {
        for (uint256 i = 0; i < authorizations.length; i++) {
            Authorization calldata a = authorizations[i];
            IEIP3009(token).transferWithAuthorization(
                a.from,
                a.to,
                a.value,
                a.validAfter,
                a.validBefore,
                a.nonce,
                a.signature
            );
        }
        emit Submitted(token, authorizations.length);
    }
}
